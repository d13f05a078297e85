package runtime

import (
	"context"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// describeTasks fills each task's business key (its instance's) and the
// form its element links: one read of the instances, and each process
// version's parsed model from the cache (its XML is not read again).
func (r *Runtime) describeTasks(ctx context.Context, tasks []TaskView) error {
	if len(tasks) == 0 {
		return nil
	}
	ids := make([]InstanceID, 0, len(tasks))
	for _, t := range tasks {
		ids = append(ids, t.InstanceID)
	}
	list, err := r.store.InstanceRows(ctx, ids)
	if err != nil {
		return err
	}
	rows := make(map[InstanceID]InstanceRow, len(list))
	for _, row := range list {
		rows[row.ID] = row
	}
	procs := map[DefinitionRef]*bpmn.Process{}
	for i := range tasks {
		t := &tasks[i]
		t.BusinessKey = rows[t.InstanceID].BusinessKey
		ref := DefinitionRef{Key: t.ProcessKey, Version: t.ProcessVersion}
		proc, ok := procs[ref]
		if !ok {
			if proc, _, err = r.process(ctx, ref.Key, ref.Version); err != nil {
				return notFoundOr(err, "process %s version %d not found", ref.Key, ref.Version)
			}
			procs[ref] = proc
		}
		if n := proc.Node(t.NodeID); n != nil {
			t.FormID = n.FormRef
		}
	}
	return nil
}

// StartFormView is what starting a process version by hand offers: its
// None start event and the Camunda Form that event links, if any.
type StartFormView struct {
	// Version is the process version read (the latest for version 0).
	Version int
	// StartEventID is the None start event's id ("" when the process has none).
	StartEventID string
	// FormID is the linked form's id ("" when none); Form is the form, nil
	// when none is linked or the linked one was not deployed with the version.
	FormID string
	Form   *FormView
}

// StartForm reads the start form of a process version (0: the latest):
// the Camunda Form its None start event links (bpmn.Node.FormRef:
// zeebe:formDefinition, gobpm:formRef, camunda:formRef, camunda:formKey),
// deployed with it, from the cached parsed model.
// ENOTFOUND for an unknown process or version.
func (r *Runtime) StartForm(ctx context.Context, key string, version int) (StartFormView, error) {
	proc, ref, err := r.process(ctx, key, version)
	if err != nil {
		return StartFormView{}, notFoundOr(err, "process %s version %d not found", key, version)
	}
	out := StartFormView{Version: ref.Version}
	for _, n := range proc.Graph.Starts {
		if n.Kind == bpmn.KindStartEvent {
			out.StartEventID, out.FormID = n.ID, n.FormRef
			break
		}
	}
	if out.FormID == "" {
		return out, nil
	}
	form, err := r.Form(ctx, key, ref.Version, out.FormID)
	switch {
	case err == nil:
		out.Form = &form
	case ErrorCode(err) != ENOTFOUND:
		return StartFormView{}, err
	}
	return out, nil
}
