/// What is stored in place of a bearer token (session cookie, one-time link):
/// the lowercase hexadecimal SHA-256 of its UTF-8. Someone who reads the
/// database cannot sign in with what they read, and because the tokens carry
/// 256 random bits, a fast unsalted hash is enough: there is nothing to guess.
/// Look a token up by this value; the database comparison of two hashes leaks
/// nothing useful about the token itself.
public enum TokenHash {
    public static func of(_ token: String) -> String {
        SHA256.hex(token.utf8)
    }
}
