package runtime

import (
	"context"
	"fmt"

	"github.com/gobpm/gobpm/internal/engine"
)

// upgradeBatch is how many legacy instances upgradeLegacy reads at a time.
const upgradeBatch = 100

// upgradeLegacy rewrites every instance still stored as one format-1
// checkpoint (written before states were stored as parts) as a header and
// parts, at start-up, before anything steps. An instance whose checkpoint
// cannot be decoded stops the upgrade: it would stop every step of it later.
func (r *Runtime) upgradeLegacy(ctx context.Context) error {
	done := 0
	for {
		rows, err := r.store.LegacyInstances(ctx, upgradeBatch)
		if err != nil {
			return fmt.Errorf("upgrade legacy checkpoints: %w", err)
		}
		if len(rows) == 0 {
			break
		}
		for _, li := range rows {
			st, err := engine.Unmarshal(li.Checkpoint)
			if err != nil {
				return fmt.Errorf("upgrade instance %s: %w", li.ID, err)
			}
			header, err := st.EncodeHeader()
			if err != nil {
				return fmt.Errorf("upgrade instance %s: %w", li.ID, err)
			}
			parts, err := st.Parts()
			if err != nil {
				return fmt.Errorf("upgrade instance %s: %w", li.ID, err)
			}
			if err := r.store.ReplaceState(ctx, li.ID, li.Revision, header, parts); err != nil {
				return fmt.Errorf("upgrade instance %s: %w", li.ID, err)
			}
			done++
		}
	}
	if done > 0 {
		r.log.Info("instance states upgraded to parts", "count", done)
	}
	return nil
}
