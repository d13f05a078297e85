package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"sync"
)

// kindCache maps the names of fact and part kinds to their ids in the
// kinds table (migration 0005), so facts and parts store a small integer
// instead of repeating the name. The table only grows and ids never
// change, so an entry, once known, stays true. Entries join the cache only
// from committed transactions (DB.writeWith) or committed reads.
type kindCache struct {
	mu    sync.RWMutex
	ids   map[string]int64
	names map[int64]string
}

// The statements of kinds.
const (
	insertKindSQL     = `INSERT INTO kinds (name) VALUES (?) ON CONFLICT (name) DO NOTHING`
	selectKindSQL     = `SELECT id FROM kinds WHERE name = ?`
	selectKindNameSQL = `SELECT name FROM kinds WHERE id = ?`
)

// id returns the cached id of name.
func (c *kindCache) id(name string) (int64, bool) {
	c.mu.RLock()
	id, ok := c.ids[name]
	c.mu.RUnlock()
	return id, ok
}

// add records committed kinds.
func (c *kindCache) add(kinds map[string]int64) {
	if len(kinds) == 0 {
		return
	}
	c.mu.Lock()
	if c.names == nil {
		c.names = map[int64]string{}
	}
	for name, id := range kinds {
		c.ids[name] = id
		c.names[id] = name
	}
	c.mu.Unlock()
}

// name returns the cached name of kind id.
func (c *kindCache) name(id int64) (string, bool) {
	c.mu.RLock()
	name, ok := c.names[id]
	c.mu.RUnlock()
	return name, ok
}

// kindName returns the name of kind id (in any transaction: a row that
// names the kind was committed with it).
func (st *txStmts) kindName(id int64) (string, error) {
	if name, ok := st.kinds.name(id); ok {
		return name, nil
	}
	for name, nid := range st.newKinds {
		if nid == id {
			return name, nil
		}
	}
	var name string
	if err := st.queryRow(selectKindNameSQL, id).Scan(&name); err != nil {
		return "", fmt.Errorf("kind %d: %w", id, err)
	}
	st.kinds.add(map[string]int64{name: id}) // committed: not one of newKinds
	return name, nil
}

// kindID returns the id of kind name in a write transaction, adding the
// kind to the table if it is new.
func (st *txStmts) kindID(name string) (int64, error) {
	if id, ok := st.kinds.id(name); ok {
		return id, nil
	}
	if id, ok := st.newKinds[name]; ok {
		return id, nil
	}
	if _, err := st.exec(insertKindSQL, name); err != nil {
		return 0, fmt.Errorf("kind %q: %w", name, err)
	}
	var id int64
	if err := st.queryRow(selectKindSQL, name).Scan(&id); err != nil {
		return 0, fmt.Errorf("kind %q: %w", name, err)
	}
	if st.newKinds == nil {
		st.newKinds = map[string]int64{}
	}
	st.newKinds[name] = id
	return id, nil
}

// lookupKind returns the id of kind name in a read transaction; ok is
// false if no row has ever used the kind.
func (st *txStmts) lookupKind(name string) (id int64, ok bool, err error) {
	if id, ok := st.kinds.id(name); ok {
		return id, true, nil
	}
	err = st.queryRow(selectKindSQL, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("kind %q: %w", name, err)
	}
	st.kinds.add(map[string]int64{name: id}) // committed: a read sees no other rows
	return id, true, nil
}
