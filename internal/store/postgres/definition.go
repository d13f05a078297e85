package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
)

// defTable is one of the two tables of immutable (key, version) rows:
// processes and DMN decisions, versioned by the same rule.
type defTable struct {
	// table is the SQL table.
	table string
	// decl and noun name a row in errors.
	decl, noun string
}

// The definition tables.
var (
	processTable  = defTable{table: "definitions", decl: "process", noun: "definition"}
	decisionTable = defTable{table: "decision_definitions", decl: "decision", noun: "decision"}
)

// deployLock is the advisory lock key that serializes deployments across
// every node, so two deployments never mint the same version ("deploy").
const deployLock = 0x6465706c6f79

// Deploy stores the deployment and registers every process and decision of
// its resources in one transaction. A key whose latest version came from
// a resource with the same hash keeps that version; any other gets the
// next one. An existing deployment id is a wrapped store.ErrConflict.
func (db *DB) Deploy(ctx context.Context, d store.DeploymentRecord) (processes, decisions []store.DefinitionRef, err error) {
	err = db.writeTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, deployLock); err != nil {
			return err
		}
		groups, err := sqlcodec.EncodeList(d.DeployedBy.Groups) // '' for none: the column is NOT NULL
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO deployments (id, deployed_at, deployed_by, deployed_by_groups) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
			d.ID, encodeTime(d.DeployedAt), d.DeployedBy.User, groups.String)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("deployment id exists: %w", store.ErrConflict)
		}
		if _, err := tx.Exec(ctx, insertKeySQL, int16(store.KeyDeployment), d.ID); err != nil {
			return fmt.Errorf("numeric key: %w", err)
		}
		for _, r := range d.Resources {
			content := r.Content
			if content == nil {
				content = []byte{} // NOT NULL: an empty upload is still content.
			}
			if _, err := tx.Exec(ctx, `INSERT INTO resources (deployment_id, name, hash, content) VALUES ($1, $2, $3, $4)`,
				d.ID, r.Name, r.Hash, content); err != nil {
				return fmt.Errorf("resource %s: %w", r.Name, err)
			}
			if processes, err = processTable.registerAll(ctx, tx, d, r, r.Processes, processes); err != nil {
				return err
			}
			if decisions, err = decisionTable.registerAll(ctx, tx, d, r, r.Decisions, decisions); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("postgres store: deploy %s: %w", d.ID, err)
	}
	return processes, decisions, nil
}

// registerAll registers decls of resource r and appends their refs.
func (t defTable) registerAll(ctx context.Context, tx pgx.Tx, d store.DeploymentRecord, r store.Resource,
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

// register registers one declaration: the latest version if its resource
// hash is r's, else the next version.
func (t defTable) register(ctx context.Context, tx pgx.Tx, d store.DeploymentRecord, r store.Resource, p store.ProcessDecl) (store.DefinitionRef, error) {
	ref := store.DefinitionRef{Key: p.Key}
	var latestHash string
	err := tx.QueryRow(ctx, `SELECT version, resource_hash FROM `+t.table+` WHERE key = $1 ORDER BY version DESC LIMIT 1`,
		p.Key).Scan(&ref.Version, &latestHash)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		ref.Version = 1
	case err != nil:
		return ref, err
	case latestHash == r.Hash:
		return ref, nil
	default:
		ref.Version++
	}
	_, err = tx.Exec(ctx, `INSERT INTO `+t.table+` (key, version, name, deployment_id, resource_name, resource_hash, deployed_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		ref.Key, ref.Version, p.Name, d.ID, r.Name, r.Hash, encodeTime(d.DeployedAt))
	if err == nil && t.table == processTable.table {
		// A process version is keyed (store.KeyProcessVersion); a decision is not.
		_, err = tx.Exec(ctx, insertKeySQL, int16(store.KeyProcessVersion), store.ProcessVersionID(ref.Key, ref.Version))
	}
	return ref, err
}

// columns selects a DefinitionRecord from table t joined with its resource.
func (t defTable) columns() string {
	return `d.key, d.version, d.name, d.deployment_id, d.resource_name, d.resource_hash, d.deployed_at, r.content
	FROM ` + t.table + ` d
	JOIN resources r ON r.deployment_id = d.deployment_id AND r.name = d.resource_name`
}

// scanDefinition reads the columns of a definition row.
func scanDefinition(row pgx.Row) (store.DefinitionRecord, error) {
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
// latest. A wrapped store.ErrNotFound if absent.
func (db *DB) Definition(ctx context.Context, key string, version int) (store.DefinitionRecord, error) {
	return db.definition(ctx, processTable, key, version)
}

// LatestDefinitions returns the latest version of every process key, by key.
func (db *DB) LatestDefinitions(ctx context.Context) ([]store.DefinitionRecord, error) {
	return db.latest(ctx, processTable)
}

// DefinitionVersions returns every version of a process key, ascending; a
// wrapped store.ErrNotFound if the key is unknown.
func (db *DB) DefinitionVersions(ctx context.Context, key string) ([]store.DefinitionRecord, error) {
	return db.versions(ctx, processTable, key)
}

// Decision returns one version of a decision key; version 0 means the latest.
func (db *DB) Decision(ctx context.Context, key string, version int) (store.DefinitionRecord, error) {
	return db.definition(ctx, decisionTable, key, version)
}

// LatestDecisions returns the latest version of every decision key, by key.
func (db *DB) LatestDecisions(ctx context.Context) ([]store.DefinitionRecord, error) {
	return db.latest(ctx, decisionTable)
}

// DecisionVersions returns every version of a decision key, ascending.
func (db *DB) DecisionVersions(ctx context.Context, key string) ([]store.DefinitionRecord, error) {
	return db.versions(ctx, decisionTable, key)
}

// definition reads one version (0: the latest) of key from t.
func (db *DB) definition(ctx context.Context, t defTable, key string, version int) (store.DefinitionRecord, error) {
	var row pgx.Row
	if version == 0 {
		row = db.pool.QueryRow(ctx, `SELECT `+t.columns()+` WHERE d.key = $1 ORDER BY d.version DESC LIMIT 1`, key)
	} else {
		row = db.pool.QueryRow(ctx, `SELECT `+t.columns()+` WHERE d.key = $1 AND d.version = $2`, key, version)
	}
	rec, err := scanDefinition(row)
	if err != nil {
		return store.DefinitionRecord{}, fmt.Errorf("postgres store: %s %s version %d: %w", t.noun, key, version, notFound(err))
	}
	return rec, nil
}

// latest reads the latest version of every key of t.
func (db *DB) latest(ctx context.Context, t defTable) ([]store.DefinitionRecord, error) {
	recs, err := queryRows(ctx, db.pool, scanDefinition, `SELECT DISTINCT ON (d.key) `+t.columns()+`
		ORDER BY d.key, d.version DESC`)
	if err != nil {
		return nil, fmt.Errorf("postgres store: latest %ss: %w", t.noun, err)
	}
	return recs, nil
}

// versions reads every version of key of t, ascending.
func (db *DB) versions(ctx context.Context, t defTable, key string) ([]store.DefinitionRecord, error) {
	recs, err := queryRows(ctx, db.pool, scanDefinition, `SELECT `+t.columns()+` WHERE d.key = $1 ORDER BY d.version`, key)
	if err == nil && len(recs) == 0 {
		err = store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("postgres store: versions of %s %s: %w", t.noun, key, err)
	}
	return recs, nil
}

// DeployedBy returns who deployed a deployment: the zero Deployer for one
// recorded without (no authentication, or before migration 0006);
// store.ErrNotFound for an unknown id.
func (db *DB) DeployedBy(ctx context.Context, deploymentID string) (store.Deployer, error) {
	var user, groups string
	err := db.pool.QueryRow(ctx, `SELECT deployed_by, deployed_by_groups FROM deployments WHERE id = $1`, deploymentID).Scan(&user, &groups)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Deployer{}, fmt.Errorf("postgres store: deployment %s: %w", deploymentID, store.ErrNotFound)
	}
	if err != nil {
		return store.Deployer{}, fmt.Errorf("postgres store: deployer of deployment %s: %w", deploymentID, err)
	}
	by := store.Deployer{User: user}
	if by.Groups, err = sqlcodec.DecodeList(sql.NullString{String: groups, Valid: groups != ""}); err != nil {
		return store.Deployer{}, fmt.Errorf("postgres store: deployer of deployment %s: %w", deploymentID, err)
	}
	return by, nil
}

// DeploymentResources returns the resources of a deployment whose names
// end with ext (any case; "" for all), by name.
func (db *DB) DeploymentResources(ctx context.Context, deploymentID, ext string) ([]store.Resource, error) {
	all, err := queryRows(ctx, db.pool, func(row pgx.Row) (store.Resource, error) {
		var r store.Resource
		err := row.Scan(&r.Name, &r.Hash, &r.Content)
		return r, err
	}, `SELECT name, hash, content FROM resources WHERE deployment_id = $1 ORDER BY name`, deploymentID)
	if err != nil {
		return nil, fmt.Errorf("postgres store: resources of deployment %s: %w", deploymentID, err)
	}
	var out []store.Resource
	for _, r := range all {
		if ext == "" || strings.EqualFold(path.Ext(r.Name), ext) {
			out = append(out, r)
		}
	}
	return out, nil
}
