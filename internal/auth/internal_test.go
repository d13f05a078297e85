package auth

import "testing"

// The token layout constants must agree with the encoding they describe.
func TestTokenLayoutConstants(t *testing.T) {
	t.Parallel()
	enc := tokenEncoding()
	if got := enc.EncodedLen(tokenIDBytes); got != tokenIDChars {
		t.Errorf("id: %d bytes encode to %d characters, constant says %d", tokenIDBytes, got, tokenIDChars)
	}
	if got := enc.EncodedLen(tokenSecretBytes); got != tokenSecretChars {
		t.Errorf("secret: %d bytes encode to %d characters, constant says %d", tokenSecretBytes, got, tokenSecretChars)
	}
}
