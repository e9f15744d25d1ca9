// The plugins' shared toolkit (seeded random numbers, the UTC clock, text tables, mesh formats and
// glTF buffers, whole-file reading, migrations), visible to every file of this core and its users.
@_exported import ClubhouseToolkit
