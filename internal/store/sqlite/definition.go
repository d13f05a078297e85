package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
)

// defTable is a table of immutable (key, version) definitions. Processes and
// decisions live in tables of identical shape (definitions, migration 0001;
// decision_definitions, migration 0003) and share every statement below,
// which differ only by table name.
type defTable struct {
	// table is the SQL table name; always one of the constants below, never
	// user input, so it is safe to splice into a statement.
	table string
	// decl names a declaration in deploy errors; noun names a row in
	// lookup errors.
	decl, noun string
}

var (
	processTable  = defTable{table: "definitions", decl: "process", noun: "definition"}
	decisionTable = defTable{table: "decision_definitions", decl: "decision", noun: "decision"}
)

// Deploy stores the deployment and registers every process and every
// decision of its resources in one transaction. A process (decision) whose
// latest version came from a resource with the same hash keeps that version;
// any other gets the next version (1 for a new key). Versions are assigned
// inside the write transaction, so two concurrent deployments cannot mint the
// same version. It returns the process refs and the decision refs, each in
// resource and document order.
func (db *DB) Deploy(ctx context.Context, d store.DeploymentRecord) (processes, decisions []store.DefinitionRef, err error) {
	err = db.writeTx(ctx, func(tx *sql.Tx) error {
		var err error
		processes, decisions, err = deploy(ctx, tx, d)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("store: deploy %s: %w", d.ID, err)
	}
	return processes, decisions, nil
}

// deploy is Deploy inside tx.
func deploy(ctx context.Context, tx *sql.Tx, d store.DeploymentRecord) (processes, decisions []store.DefinitionRef, err error) {
	groups, err := sqlcodec.EncodeList(d.DeployedBy.Groups) // '' for none: the column is NOT NULL
	if err != nil {
		return nil, nil, err
	}
	res, err := tx.ExecContext(ctx,
		`INSERT INTO deployments (id, deployed_at, deployed_by, deployed_by_groups) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		d.ID, encodeTime(d.DeployedAt), d.DeployedBy.User, groups.String)
	if err != nil {
		return nil, nil, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, nil, err
	} else if n == 0 {
		return nil, nil, fmt.Errorf("deployment id exists: %w", store.ErrConflict)
	}
	if _, err := tx.ExecContext(ctx, insertKeySQL, int(store.KeyDeployment), d.ID); err != nil {
		return nil, nil, fmt.Errorf("numeric key: %w", err)
	}
	for _, r := range d.Resources {
		content := r.Content
		if content == nil {
			content = []byte{} // NOT NULL: an empty upload is still content.
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO resources (deployment_id, name, hash, content) VALUES (?, ?, ?, ?)`,
			d.ID, r.Name, r.Hash, content); err != nil {
			return nil, nil, fmt.Errorf("resource %s: %w", r.Name, err)
		}
		if processes, err = processTable.registerAll(ctx, tx, d, r, r.Processes, processes); err != nil {
			return nil, nil, err
		}
		if decisions, err = decisionTable.registerAll(ctx, tx, d, r, r.Decisions, decisions); err != nil {
			return nil, nil, err
		}
	}
	return processes, decisions, nil
}

// registerAll registers every declaration of resource r in t and appends the
// refs to refs.
func (t defTable) registerAll(ctx context.Context, tx *sql.Tx, d store.DeploymentRecord, r store.Resource,
	decls []store.ProcessDecl, refs []store.DefinitionRef) ([]store.DefinitionRef, error) {
	for _, p := range decls {
		ref, err := t.register(ctx, tx, d, r, p)
		if err != nil {
			return nil, fmt.Errorf("%s %s of resource %s: %w", t.decl, p.Key, r.Name, err)
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// register keeps the latest version of p.Key in t if it came from a resource
// with r's hash, and otherwise inserts the next version.
func (t defTable) register(ctx context.Context, tx *sql.Tx, d store.DeploymentRecord, r store.Resource, p store.ProcessDecl) (store.DefinitionRef, error) {
	ref := store.DefinitionRef{Key: p.Key}
	var latestHash string
	err := tx.QueryRowContext(ctx,
		`SELECT version, resource_hash FROM `+t.table+` WHERE key = ? ORDER BY version DESC LIMIT 1`,
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
		`INSERT INTO `+t.table+` (key, version, name, deployment_id, resource_name, resource_hash, deployed_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?)`,
		ref.Key, ref.Version, p.Name, d.ID, r.Name, r.Hash, encodeTime(d.DeployedAt))
	if err == nil && t.table == processTable.table {
		// A process version is keyed (store.KeyProcessVersion); a decision is not.
		_, err = tx.ExecContext(ctx, insertKeySQL, int(store.KeyProcessVersion), store.ProcessVersionID(ref.Key, ref.Version))
	}
	return ref, err
}

// columns selects a DefinitionRecord of t (aliased d) with its resource
// content; scanDefinition reads it.
func (t defTable) columns() string {
	return `d.key, d.version, d.name, d.deployment_id, d.resource_name, d.resource_hash, d.deployed_at, r.content
	FROM ` + t.table + ` d
	JOIN resources r ON r.deployment_id = d.deployment_id AND r.name = d.resource_name`
}

// scanDefinition reads one row selected with defTable.columns.
func scanDefinition(row interface{ Scan(...any) error }) (store.DefinitionRecord, error) {
	var (
		rec store.DefinitionRecord
		at  int64
	)
	if err := row.Scan(&rec.Key, &rec.Version, &rec.Name, &rec.DeploymentID, &rec.ResourceName,
		&rec.ResourceHash, &at, &rec.XML); err != nil {
		return rec, err
	}
	rec.DeployedAt = decodeTime(at)
	return rec, nil
}

// Definition returns one version of a process key; version 0 means the
// latest. It returns a wrapped store.ErrNotFound if there is no such
// definition.
func (db *DB) Definition(ctx context.Context, key string, version int) (store.DefinitionRecord, error) {
	return db.definition(ctx, processTable, key, version)
}

// LatestDefinitions returns the latest version of every process key, ordered
// by key.
func (db *DB) LatestDefinitions(ctx context.Context) ([]store.DefinitionRecord, error) {
	return db.latest(ctx, processTable)
}

// DefinitionVersions returns every version of a process key, ascending. It
// returns a wrapped store.ErrNotFound if the key is unknown.
func (db *DB) DefinitionVersions(ctx context.Context, key string) ([]store.DefinitionRecord, error) {
	return db.versions(ctx, processTable, key)
}

// Decision returns one version of a decision key; version 0 means the
// latest. XML is the DMN document that declares it. It returns a wrapped
// store.ErrNotFound if there is no such decision.
func (db *DB) Decision(ctx context.Context, key string, version int) (store.DefinitionRecord, error) {
	return db.definition(ctx, decisionTable, key, version)
}

// LatestDecisions returns the latest version of every decision key, ordered
// by key.
func (db *DB) LatestDecisions(ctx context.Context) ([]store.DefinitionRecord, error) {
	return db.latest(ctx, decisionTable)
}

// DecisionVersions returns every version of a decision key, ascending. It
// returns a wrapped store.ErrNotFound if the key is unknown.
func (db *DB) DecisionVersions(ctx context.Context, key string) ([]store.DefinitionRecord, error) {
	return db.versions(ctx, decisionTable, key)
}

// definition returns one version of a key of t; version 0 means the latest.
func (db *DB) definition(ctx context.Context, t defTable, key string, version int) (store.DefinitionRecord, error) {
	var rec store.DefinitionRecord
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		if version == 0 {
			rec, err = scanDefinition(tx.QueryRowContext(ctx,
				`SELECT `+t.columns()+` WHERE d.key = ? ORDER BY d.version DESC LIMIT 1`, key))
		} else {
			rec, err = scanDefinition(tx.QueryRowContext(ctx,
				`SELECT `+t.columns()+` WHERE d.key = ? AND d.version = ?`, key, version))
		}
		return notFound(err)
	})
	if err != nil {
		return store.DefinitionRecord{}, fmt.Errorf("store: %s %s version %d: %w", t.noun, key, version, err)
	}
	return rec, nil
}

// latest returns the latest version of every key of t, ordered by key.
func (db *DB) latest(ctx context.Context, t defTable) ([]store.DefinitionRecord, error) {
	var recs []store.DefinitionRecord
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		recs, err = queryDefinitions(ctx, tx,
			`SELECT `+t.columns()+`
			 WHERE d.version = (SELECT MAX(version) FROM `+t.table+` WHERE key = d.key)
			 ORDER BY d.key`)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: latest %ss: %w", t.noun, err)
	}
	return recs, nil
}

// versions returns every version of a key of t, ascending; ErrNotFound if the
// key is unknown.
func (db *DB) versions(ctx context.Context, t defTable, key string) ([]store.DefinitionRecord, error) {
	var recs []store.DefinitionRecord
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		recs, err = queryDefinitions(ctx, tx,
			`SELECT `+t.columns()+` WHERE d.key = ? ORDER BY d.version`, key)
		if err == nil && len(recs) == 0 {
			err = store.ErrNotFound
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: versions of %s %s: %w", t.noun, key, err)
	}
	return recs, nil
}

// queryDefinitions runs a defTable.columns query and reads every row.
func queryDefinitions(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]store.DefinitionRecord, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var recs []store.DefinitionRecord
	for rows.Next() {
		rec, err := scanDefinition(rows)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	return recs, rows.Err()
}

// DeployedBy returns who deployed a deployment: the zero Deployer for one
// recorded without (no authentication, or before migration 0013);
// store.ErrNotFound for an unknown id.
func (db *DB) DeployedBy(ctx context.Context, deploymentID string) (store.Deployer, error) {
	var user, groups string
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `SELECT deployed_by, deployed_by_groups FROM deployments WHERE id = ?`, deploymentID).Scan(&user, &groups)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return store.Deployer{}, fmt.Errorf("store: deployment %s: %w", deploymentID, store.ErrNotFound)
	}
	if err != nil {
		return store.Deployer{}, fmt.Errorf("store: deployer of deployment %s: %w", deploymentID, err)
	}
	by := store.Deployer{User: user}
	if by.Groups, err = sqlcodec.DecodeList(sql.NullString{String: groups, Valid: groups != ""}); err != nil {
		return store.Deployer{}, fmt.Errorf("store: deployer of deployment %s: %w", deploymentID, err)
	}
	return by, nil
}

// DeploymentResources returns the resources of one deployment whose names
// end with ext (".dmn"; "" for all), in name order: what a model that
// imports another of its deployment is read together with.
func (db *DB) DeploymentResources(ctx context.Context, deploymentID, ext string) ([]store.Resource, error) {
	var out []store.Resource
	err := db.readTx(ctx, func(tx *sql.Tx) error {
		rs, err := tx.QueryContext(ctx, `SELECT name, hash, content FROM resources WHERE deployment_id = ? ORDER BY name`, deploymentID)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var r store.Resource
			if err := rs.Scan(&r.Name, &r.Hash, &r.Content); err != nil {
				return err
			}
			if ext == "" || strings.EqualFold(path.Ext(r.Name), ext) {
				out = append(out, r)
			}
		}
		return rs.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: resources of deployment %s: %w", deploymentID, err)
	}
	return out, nil
}
