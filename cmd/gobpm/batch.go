package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gobpm/gobpm/client"
)

// batch runs "gobpm batch create|get|list|items|pause|resume|cancel".
func (k *cli) batch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("batch: %w: want create, get, list, items, pause, resume or cancel", errUsage)
	}
	switch args[0] {
	case "create":
		return k.batchCreate(ctx, args[1:])
	case "get":
		return k.batchOne(ctx, "batch get", args[1:], k.batchGet)
	case "pause":
		return k.batchOne(ctx, "batch pause", args[1:], func(ctx context.Context, id string) (client.Batch, error) { return k.c.PauseBatch(ctx, id) })
	case "resume":
		return k.batchOne(ctx, "batch resume", args[1:], func(ctx context.Context, id string) (client.Batch, error) { return k.c.ResumeBatch(ctx, id) })
	case "cancel":
		return k.batchOne(ctx, "batch cancel", args[1:], func(ctx context.Context, id string) (client.Batch, error) { return k.c.CancelBatch(ctx, id) })
	case "list":
		return k.batchList(ctx, args[1:])
	case "items":
		return k.batchItems(ctx, args[1:])
	}
	return fmt.Errorf("batch: %w: unknown %q", errUsage, args[0])
}

func (k *cli) batchGet(ctx context.Context, id string) (client.Batch, error) {
	return k.c.Batch(ctx, id)
}

// batchCreate runs "gobpm batch create OPERATION [--filter k=v]… …".
func (k *cli) batchCreate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("batch create", flag.ContinueOnError)
	var filters, mapping multi
	variables := vars{}
	dryRun := fs.Bool("dry-run", false, "only count the instances the filter matches now")
	retries := fs.Int("retries", 0, "retry-incidents: retries per incident")
	target := fs.Int("target-version", 0, "migrate: the target version")
	instructions := fs.String("instructions", "", "modify: the instructions as a JSON array")
	fs.Var(&filters, "filter", "a filter parameter of the instance list, name=value (repeatable)")
	fs.Var(&mapping, "map", "migrate: source=target element id (repeatable)")
	fs.Var(variables, "var", "set-variables: k=v (repeatable)")
	pos, err := k.parse(fs, args, 1)
	if err != nil {
		return err
	}
	spec := client.BatchSpec{Operation: pos[0], Filter: url.Values{}, Retries: *retries, TargetVersion: *target}
	for _, f := range filters {
		name, value, ok := strings.Cut(f, "=")
		if !ok || name == "" {
			return fmt.Errorf("batch create: %w: --filter %q is not name=value", errUsage, f)
		}
		spec.Filter.Add(name, value)
	}
	for _, m := range mapping {
		src, dst, ok := strings.Cut(m, "=")
		if !ok || src == "" || dst == "" {
			return fmt.Errorf("batch create: %w: --map %q is not source=target", errUsage, m)
		}
		if spec.Mapping == nil {
			spec.Mapping = map[string]string{}
		}
		spec.Mapping[src] = dst
	}
	if len(variables) > 0 {
		spec.Variables = variables
	}
	if *instructions != "" {
		if err := json.Unmarshal([]byte(*instructions), &spec.Instructions); err != nil {
			return fmt.Errorf("batch create: %w: --instructions is not a JSON array of objects: %w", errUsage, err)
		}
	}
	if *dryRun {
		n, err := k.c.CountBatch(ctx, spec)
		if err != nil {
			return err
		}
		count := strconv.Itoa(n.Count)
		if n.More {
			count = "more than " + count
		}
		return k.print(map[string]any{"dryRun": true, "count": n.Count, "more": n.More}, "COUNT", [][]string{{count}})
	}
	b, err := k.c.CreateBatch(ctx, spec)
	if err != nil {
		return err
	}
	return k.printBatches(b, []client.Batch{b})
}

// batchOne runs a batch verb that takes the batch id.
func (k *cli) batchOne(ctx context.Context, name string, args []string, act func(context.Context, string) (client.Batch, error)) error {
	pos, err := k.parse(flag.NewFlagSet(name, flag.ContinueOnError), args, 1)
	if err != nil {
		return err
	}
	b, err := act(ctx, pos[0])
	if err != nil {
		return err
	}
	return k.printBatches(b, []client.Batch{b})
}

// batchList runs "gobpm batch list [--limit N] [--offset N]".
func (k *cli) batchList(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("batch list", flag.ContinueOnError)
	limit := fs.Int("limit", 0, "page size")
	offset := fs.Int("offset", 0, "batches to skip")
	if _, err := k.parse(fs, args, 0); err != nil {
		return err
	}
	page, err := k.c.Batches(ctx, *limit, *offset)
	if err != nil {
		return err
	}
	return k.printBatches(page, page.Items)
}

// batchItems runs "gobpm batch items ID [--status S] [--cursor C] [--limit N]".
func (k *cli) batchItems(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("batch items", flag.ContinueOnError)
	status := fs.String("status", "", "pending, done or failed")
	cursor := fs.String("cursor", "", "the next cursor of the previous page")
	limit := fs.Int("limit", 0, "page size")
	pos, err := k.parse(fs, args, 1)
	if err != nil {
		return err
	}
	page, err := k.c.BatchItems(ctx, pos[0], *status, *cursor, *limit)
	if err != nil {
		return err
	}
	rows := make([][]string, 0, len(page.Items))
	for _, it := range page.Items {
		rows = append(rows, []string{strconv.FormatInt(it.Seq, 10), it.InstanceID, it.Status, it.Reason})
	}
	if page.NextCursor != "" && !k.json {
		fmt.Fprintln(k.err, "next cursor:", page.NextCursor)
	}
	return k.print(page, "SEQ\tINSTANCE\tSTATUS\tREASON", rows)
}

// printBatches prints v as JSON, or the batches as a table.
func (k *cli) printBatches(v any, batches []client.Batch) error {
	rows := make([][]string, 0, len(batches))
	for _, b := range batches {
		rows = append(rows, []string{b.ID, b.Operation, b.State, strconv.Itoa(b.Total), strconv.Itoa(b.Done),
			strconv.Itoa(b.Failed), strconv.Itoa(b.Pending), b.CreatedBy, b.CreatedAt.Format(time.RFC3339)})
	}
	return k.print(v, "ID\tOPERATION\tSTATE\tTOTAL\tDONE\tFAILED\tPENDING\tBY\tCREATED", rows)
}
