// Every module above this one sees ClubhouseStrings' searches (`contains`, `replacing`, `firstRange(of:)`…),
// which the standard library lacks in modules built without `_StringProcessing` (Package.swift, productSettings).
@_exported import ClubhouseStrings
