// The host's own version.

public enum ClubhouseVersion {
    public static let string = "1.0.0"
}
