package runtime

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
)

// Job keys and lock tokens.
//
// The engine names a job by its wait id, "<instance id>-w000001": compact,
// ordered, and guessable by anyone who knows the instance. The runtime
// hands workers the job's public key instead, "<wait id>.<mac>", where mac
// is the first JobKeyMACSize bytes of HMAC-SHA256(secret, wait id) in
// lower-case base32. The secret is JobKeySecretSize random bytes generated
// on a database's first start and kept in the store (ServerSecret), so a
// key verifies on the database that issued it and nowhere else. A key
// whose mac does not verify is "not found", exactly like an unknown key.
//
// Each activation also mints a lock token per job, LockTokenSize random
// bytes in lower-case base32, and the store keeps only its SHA-256 hash
// with the lock. Complete, fail, error and extend need the token (and the
// activating user): the job belongs to the worker that activated it.
const (
	// JobKeySecretName is the name of the job-key secret in the store.
	JobKeySecretName = "job-keys"
	// JobKeySecretSize is the size of the job-key secret in bytes.
	JobKeySecretSize = 32
	// JobKeyMACSize is how many bytes of the HMAC a job key carries (80
	// bits: 16 base32 characters).
	JobKeyMACSize = 10
	// LockTokenSize is the size of a lock token in bytes (128 bits: 26
	// base32 characters).
	LockTokenSize = 16
)

// textEncoding renders macs and tokens: lower-case base32 without padding,
// safe in a URL path and a JSON string alike.
var textEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// lockedReader serializes reads of a random source, so an injected reader
// need not be safe for concurrent use.
type lockedReader struct {
	mu sync.Mutex
	r  io.Reader
}

func newLockedReader(r io.Reader) *lockedReader {
	if r == nil {
		r = rand.Reader
	}
	return &lockedReader{r: r}
}

// fill fills b with random bytes.
func (l *lockedReader) fill(b []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := io.ReadFull(l.r, b); err != nil {
		return fmt.Errorf("runtime: read random bytes: %w", err)
	}
	return nil
}

// jobKeys holds the job-key secret once it is loaded (owned by
// jobKeySecret; read lock-free afterwards).
type jobKeys struct {
	mu     sync.Mutex // serializes the first load
	secret atomic.Pointer[[]byte]
}

// jobKeySecret returns the secret that signs job keys, loading it from the
// store on first use (Resume does so at start-up); a database without one
// gets a fresh one from the runtime's random source.
func (r *Runtime) jobKeySecret(ctx context.Context) ([]byte, error) {
	if s := r.keys.secret.Load(); s != nil {
		return *s, nil
	}
	r.keys.mu.Lock()
	defer r.keys.mu.Unlock()
	if s := r.keys.secret.Load(); s != nil {
		return *s, nil
	}
	fresh := make([]byte, JobKeySecretSize)
	if err := r.rand.fill(fresh); err != nil {
		return nil, err
	}
	secret, err := r.store.ServerSecret(ctx, JobKeySecretName, fresh)
	if err != nil {
		return nil, fmt.Errorf("runtime: job-key secret: %w", err)
	}
	if len(secret) < JobKeySecretSize {
		return nil, fmt.Errorf("runtime: job-key secret: the store holds %d bytes, want %d", len(secret), JobKeySecretSize)
	}
	r.keys.secret.Store(&secret)
	return secret, nil
}

// jobMAC is the mac part of the public key of wait id under secret.
func jobMAC(secret []byte, waitID string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(waitID))
	return textEncoding.EncodeToString(m.Sum(nil)[:JobKeyMACSize])
}

// JobKey returns the public key of the job with wait id waitID: the key
// activation answers and the job routes take.
func (r *Runtime) JobKey(ctx context.Context, waitID string) (string, error) {
	secret, err := r.jobKeySecret(ctx)
	if err != nil {
		return "", err
	}
	return waitID + "." + jobMAC(secret, waitID), nil
}

// jobWaitID verifies a public job key and returns its wait id. A key
// without a mac, or whose mac does not verify, is ENOTFOUND with the
// message of an unknown job, so the answer tells nothing about the mac.
func (r *Runtime) jobWaitID(ctx context.Context, key string) (string, error) {
	secret, err := r.jobKeySecret(ctx)
	if err != nil {
		return "", err
	}
	i := strings.LastIndexByte(key, '.')
	if i > 0 {
		id, mac := key[:i], strings.ToLower(key[i+1:])
		if hmac.Equal([]byte(mac), []byte(jobMAC(secret, id))) {
			return id, nil
		}
	}
	return "", &Error{Code: ENOTFOUND, Message: fmt.Sprintf("job %s not found: it was completed, withdrawn or never existed", key)}
}

// mintLockTokens returns n fresh lock tokens and their SHA-256 hashes.
func (r *Runtime) mintLockTokens(n int) (tokens []string, hashes [][]byte, err error) {
	raw := make([]byte, n*LockTokenSize)
	if err := r.rand.fill(raw); err != nil {
		return nil, nil, err
	}
	tokens, hashes = make([]string, n), make([][]byte, n)
	for i := range n {
		b := raw[i*LockTokenSize : (i+1)*LockTokenSize]
		sum := sha256.Sum256(b)
		tokens[i], hashes[i] = textEncoding.EncodeToString(b), sum[:]
	}
	return tokens, hashes, nil
}

// lockTokenHash returns the SHA-256 hash of a lock token as activation
// rendered it (upper case accepted); EINVALID naming lockToken for text
// that is no lock token at all.
func lockTokenHash(token string) ([]byte, error) {
	b, err := textEncoding.DecodeString(strings.ToLower(token))
	if err != nil || len(b) != LockTokenSize {
		return nil, &Error{Code: EINVALID, Message: fmt.Sprintf("lockToken is not a lock token: activation answers %d base32 characters", textEncoding.EncodedLen(LockTokenSize)), Field: "lockToken"}
	}
	sum := sha256.Sum256(b)
	return sum[:], nil
}

// checkHolder checks that holder, whose token hashes to hash, holds the
// lock of job row. A job that is not locked (never activated, or released
// by a failure report or an incident retry) and a lock held with another
// token (it expired and the job was activated again) are ECONFLICT; a
// lock activated by another user is EFORBIDDEN. A lock that expired while
// nobody activated the job again still counts: delivery is at least once,
// and the late result is taken (extend checks expiry itself).
func checkHolder(row WaitRow, holder JobHolder, hash []byte) error {
	switch {
	case row.LockTokenHash == nil:
		return &Error{Code: ECONFLICT, Message: fmt.Sprintf("job %s is not activated (never, or released by a failure report or an incident retry): "+
			"activate it and present the lock token the activation answers", row.ID)}
	case subtle.ConstantTimeCompare(row.LockTokenHash, hash) != 1:
		return &Error{Code: ECONFLICT, Message: fmt.Sprintf("job %s is locked by another activation: its lock expired and the job was activated again, "+
			"or the lock token is not the one its activation answered", row.ID)}
	case row.LockUser != holder.User:
		return &Error{Code: EFORBIDDEN, Message: fmt.Sprintf("job %s was activated by another user: only the user who activated a job may act on it", row.ID)}
	}
	return nil
}
