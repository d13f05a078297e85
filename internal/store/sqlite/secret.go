package sqlite

import (
	"context"
	"fmt"
	"time"
)

// The statements of ServerSecret.
const (
	// insertSecretSQL stores a secret unless its name has one. Arguments:
	// name, secret, created_at.
	insertSecretSQL = `INSERT INTO server_secrets (name, secret, created_at) VALUES (?, ?, ?)
		ON CONFLICT (name) DO NOTHING`
	// selectSecretSQL reads a secret. Argument: name.
	selectSecretSQL = `SELECT secret FROM server_secrets WHERE name = ?`
)

// ServerSecret returns the secret stored under name (migration 0007,
// server_secrets), storing fresh first if the name has none. The insert
// and the read share one durable write transaction, so two servers
// starting on one database at once agree on one secret: the first to
// commit. An empty fresh is refused.
func (db *DB) ServerSecret(ctx context.Context, name string, fresh []byte) ([]byte, error) {
	if len(fresh) == 0 {
		return nil, fmt.Errorf("store: server secret %q: the fresh secret is empty", name)
	}
	var secret []byte
	err := db.writeWith(ctx, func(st *txStmts) error {
		if _, err := st.exec(insertSecretSQL, name, fresh, encodeTime(time.Now())); err != nil {
			return err
		}
		return st.queryRow(selectSecretSQL, name).Scan(&secret)
	})
	if err != nil {
		return nil, fmt.Errorf("store: server secret %q: %w", name, err)
	}
	return secret, nil
}
