//go:build ignore

// Command cut keeps the part of Camunda 7's engine-rest OpenAPI document
// that gobpm serves: the operations below and every schema they reach.
//
//	go run cut.go < openapi.json > engine-rest-7.14.json
//
// The operations newer than the document (added) are appended as given.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// served lists the operations gobpm's /engine-rest serves, by path and
// method.
var served = map[string][]string{
	"/deployment":                         {"get"},
	"/deployment/create":                  {"post"},
	"/engine":                             {"get"},
	"/external-task":                      {"get"},
	"/external-task/count":                {"get"},
	"/external-task/fetchAndLock":         {"post"},
	"/external-task/{id}":                 {"get"},
	"/external-task/{id}/bpmnError":       {"post"},
	"/external-task/{id}/complete":        {"post"},
	"/external-task/{id}/errorDetails":    {"get"},
	"/external-task/{id}/extendLock":      {"post"},
	"/external-task/{id}/failure":         {"post"},
	"/external-task/{id}/priority":        {"put"},
	"/external-task/{id}/retries":         {"put"},
	"/external-task/{id}/unlock":          {"post"},
	"/history/process-instance":           {"get"},
	"/incident":                           {"get"},
	"/message":                            {"post"},
	"/process-definition":                 {"get"},
	"/process-definition/key/{key}":       {"get"},
	"/process-definition/key/{key}/start": {"post"},
	"/process-definition/{id}/start":      {"post"},
	"/process-instance":                   {"get"},
	"/process-instance/{id}":              {"get", "delete"},
	"/process-instance/{id}/variables":    {"get"},
	"/signal":                             {"post"},
	"/task":                               {"get"},
	"/task/{id}":                          {"get"},
	"/task/{id}/claim":                    {"post"},
	"/task/{id}/complete":                 {"post"},
	"/task/{id}/form-variables":           {"get"},
	"/task/{id}/unclaim":                  {"post"},
	"/version":                            {"get"},
}

// added holds operations Camunda 7 gained after 7.14, rendered by hand
// from the templates of camunda/camunda-bpm-platform
// (engine-rest/engine-rest-openapi/src/main/templates), Apache-2.0.
const added = `{
  "paths": {
    "/external-task/{id}/lock": {
      "post": {
        "operationId": "lock",
        "tags": ["External Task"],
        "description": "Lock an external task by a given id for a specified worker and amount of time.",
        "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The id of the external task."}],
        "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/LockExternalTaskDto"}}}},
        "responses": {
          "204": {"description": "Request successful."},
          "400": {"description": "In case the lock duration is negative or the external task is already locked by a different worker, an exception of type InvalidRequestException is returned.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ExceptionDto"}}}},
          "404": {"description": "Returned if the task does not exist.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ExceptionDto"}}}}
        }
      }
    }
  },
  "schemas": {
    "LockExternalTaskDto": {
      "type": "object",
      "properties": {
        "workerId": {"type": "string", "description": "The ID of the worker who is performing the operation on the external task."},
        "lockDuration": {"type": "integer", "format": "int64", "description": "The duration to lock the external task for in milliseconds."}
      }
    }
  }
}`

func main() {
	var doc map[string]any
	if err := json.NewDecoder(os.Stdin).Decode(&doc); err != nil {
		fail(err)
	}
	paths := doc["paths"].(map[string]any)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	var extra struct {
		Paths   map[string]any `json:"paths"`
		Schemas map[string]any `json:"schemas"`
	}
	if err := json.Unmarshal([]byte(added), &extra); err != nil {
		fail(err)
	}
	for name, s := range extra.Schemas {
		schemas[name] = s
	}
	kept := map[string]any{}
	for p, methods := range served {
		item, ok := paths[p].(map[string]any)
		if !ok {
			fail(fmt.Errorf("the document has no path %s", p))
		}
		out := map[string]any{}
		if ps, ok := item["parameters"]; ok {
			out["parameters"] = ps
		}
		for _, m := range methods {
			op, ok := item[m]
			if !ok {
				fail(fmt.Errorf("the document has no %s %s", m, p))
			}
			out[m] = op
		}
		kept[p] = out
	}
	for p, item := range extra.Paths {
		kept[p] = item
	}
	// Keep every schema the kept operations reach.
	reached := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				name := strings.TrimPrefix(ref, "#/components/schemas/")
				if !reached[name] {
					reached[name] = true
					s, ok := schemas[name]
					if !ok {
						fail(fmt.Errorf("no schema %s", name))
					}
					walk(s)
				}
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(kept)
	names := make([]string, 0, len(reached))
	for n := range reached {
		names = append(names, n)
	}
	sort.Strings(names)
	keptSchemas := map[string]any{}
	for _, n := range names {
		keptSchemas[n] = schemas[n]
	}
	doc["paths"] = kept
	doc["components"] = map[string]any{"schemas": keptSchemas}
	doc["servers"] = []any{map[string]any{"url": "/engine-rest"}}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cut:", err)
	os.Exit(1)
}
