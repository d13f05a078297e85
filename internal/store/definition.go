package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Deploy stores the deployment and registers every process of its resources
// in one transaction. A process whose latest version came from a resource
// with the same hash keeps that version; any other gets the next version (1
// for a new key). Versions are assigned inside the write transaction, so two
// concurrent deployments cannot mint the same version. It returns the refs
// in resource and document order.
func (db *DB) Deploy(ctx context.Context, d runtime.DeploymentRecord) ([]runtime.DefinitionRef, error) {
	var refs []runtime.DefinitionRef
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		var err error
		refs, err = deploy(ctx, tx, d)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: deploy %s: %w", d.ID, err)
	}
	return refs, nil
}

// deploy is Deploy inside tx.
func deploy(ctx context.Context, tx *sql.Tx, d runtime.DeploymentRecord) ([]runtime.DefinitionRef, error) {
	res, err := tx.ExecContext(ctx,
		`INSERT INTO deployments (id, deployed_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`,
		d.ID, encodeTime(d.DeployedAt))
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, err
	} else if n == 0 {
		return nil, fmt.Errorf("deployment id exists: %w", runtime.ErrConflict)
	}
	var refs []runtime.DefinitionRef
	for _, r := range d.Resources {
		content := r.Content
		if content == nil {
			content = []byte{} // NOT NULL: an empty upload is still content.
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO resources (deployment_id, name, hash, content) VALUES (?, ?, ?, ?)`,
			d.ID, r.Name, r.Hash, content); err != nil {
			return nil, fmt.Errorf("resource %s: %w", r.Name, err)
		}
		for _, p := range r.Processes {
			ref, err := registerProcess(ctx, tx, d, r, p)
			if err != nil {
				return nil, fmt.Errorf("process %s of resource %s: %w", p.Key, r.Name, err)
			}
			refs = append(refs, ref)
		}
	}
	return refs, nil
}

// registerProcess keeps the latest version of p.Key if it came from a
// resource with r's hash, and otherwise inserts the next version.
func registerProcess(ctx context.Context, tx *sql.Tx, d runtime.DeploymentRecord, r runtime.Resource, p runtime.ProcessDecl) (runtime.DefinitionRef, error) {
	ref := runtime.DefinitionRef{Key: p.Key}
	var latestHash string
	err := tx.QueryRowContext(ctx,
		`SELECT version, resource_hash FROM definitions WHERE key = ? ORDER BY version DESC LIMIT 1`,
		p.Key).Scan(&ref.Version, &latestHash)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		ref.Version = 1
	case err != nil:
		return ref, err
	case latestHash == r.Hash:
		return ref, nil
	default:
		ref.Version++
	}
	_, err = tx.ExecContext(ctx,
		`INSERT INTO definitions (key, version, name, deployment_id, resource_name, resource_hash, deployed_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?)`,
		ref.Key, ref.Version, p.Name, d.ID, r.Name, r.Hash, encodeTime(d.DeployedAt))
	return ref, err
}

// definitionColumns selects a DefinitionRecord; scanDefinition reads it.
const definitionColumns = `d.key, d.version, d.name, d.deployment_id, d.resource_name, d.resource_hash, d.deployed_at, r.content
	FROM definitions d
	JOIN resources r ON r.deployment_id = d.deployment_id AND r.name = d.resource_name`

// scanDefinition reads one row selected with definitionColumns.
func scanDefinition(row interface{ Scan(...any) error }) (runtime.DefinitionRecord, error) {
	var (
		rec runtime.DefinitionRecord
		at  int64
	)
	if err := row.Scan(&rec.Key, &rec.Version, &rec.Name, &rec.DeploymentID, &rec.ResourceName,
		&rec.ResourceHash, &at, &rec.XML); err != nil {
		return rec, err
	}
	rec.DeployedAt = decodeTime(at)
	return rec, nil
}

// Definition returns one version of a key; version 0 means the latest.
// It returns a wrapped runtime.ErrNotFound if there is no such definition.
func (db *DB) Definition(ctx context.Context, key string, version int) (runtime.DefinitionRecord, error) {
	var rec runtime.DefinitionRecord
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		if version == 0 {
			rec, err = scanDefinition(tx.QueryRowContext(ctx,
				`SELECT `+definitionColumns+` WHERE d.key = ? ORDER BY d.version DESC LIMIT 1`, key))
		} else {
			rec, err = scanDefinition(tx.QueryRowContext(ctx,
				`SELECT `+definitionColumns+` WHERE d.key = ? AND d.version = ?`, key, version))
		}
		return notFound(err)
	})
	if err != nil {
		return runtime.DefinitionRecord{}, fmt.Errorf("store: definition %s version %d: %w", key, version, err)
	}
	return rec, nil
}

// LatestDefinitions returns the latest version of every key, ordered by key.
func (db *DB) LatestDefinitions(ctx context.Context) ([]runtime.DefinitionRecord, error) {
	var recs []runtime.DefinitionRecord
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		recs, err = queryDefinitions(ctx, tx,
			`SELECT `+definitionColumns+`
			 WHERE d.version = (SELECT MAX(version) FROM definitions WHERE key = d.key)
			 ORDER BY d.key`)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: latest definitions: %w", err)
	}
	return recs, nil
}

// DefinitionVersions returns every version of a key, ascending. It returns a
// wrapped runtime.ErrNotFound if the key is unknown.
func (db *DB) DefinitionVersions(ctx context.Context, key string) ([]runtime.DefinitionRecord, error) {
	var recs []runtime.DefinitionRecord
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		recs, err = queryDefinitions(ctx, tx,
			`SELECT `+definitionColumns+` WHERE d.key = ? ORDER BY d.version`, key)
		if err == nil && len(recs) == 0 {
			err = runtime.ErrNotFound
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: versions of definition %s: %w", key, err)
	}
	return recs, nil
}

// queryDefinitions runs a definitionColumns query and reads every row.
func queryDefinitions(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]runtime.DefinitionRecord, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var recs []runtime.DefinitionRecord
	for rows.Next() {
		rec, err := scanDefinition(rows)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	return recs, rows.Err()
}
