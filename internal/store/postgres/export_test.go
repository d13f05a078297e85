package postgres

import (
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// WaitsPageShapes are the statements, with arguments, of every indexed
// WaitsPage shape (jobs with and without a type, named message waits,
// each with and without a process key, the activatable condition for
// jobs and a cursor), for the plan test.
func WaitsPageShapes() (queries []string, args [][]any) {
	at, after := time.Unix(1, 0), store.WaitCursor{ID: "x", CreatedAt: time.Unix(1, 0)}
	for _, base := range []store.WaitPageFilter{{Kind: store.WaitJob, Name: "x"}, {Kind: store.WaitJob}, {Kind: store.WaitMessage, Name: "x"}} {
		for shape := range 8 {
			f := base
			if shape&1 != 0 {
				f.ProcessKey = "x"
			}
			if shape&2 != 0 {
				if f.Kind != store.WaitJob {
					continue
				}
				f.ActivatableAt = at
			}
			if shape&4 != 0 {
				f.After = after
			}
			q, a := waitsPageSQL(f, 10)
			queries, args = append(queries, q), append(args, a)
		}
	}
	return queries, args
}
