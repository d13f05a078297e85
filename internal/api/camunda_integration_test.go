package api_test

// These tests deploy the same order process drawn in the Camunda Modeler for
// Camunda 7 and for Camunda 8 (testdata/camunda), unchanged, and drive it to
// its end through the real router, the real runtime and a real SQLite file,
// as a Camunda worker and a Camunda tasklist user would: external tasks by
// topic and job types (one a FEEL expression), their headers, user tasks
// offered to a candidate group, input and output mappings, a call activity
// passing variables both ways, and a script task.

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// camundaOrder is one platform's drawing of the order process.
type camundaOrder struct {
	platform string
	// files are deployed together; order and shipping are the process keys.
	files           []string
	order, shipping string
	// labelType is the shipping child's job type for region "eu" (a FEEL
	// expression in the Camunda 8 drawing).
	labelType string
	// resultStaysLocal: Camunda 8 output mappings keep a job's variables
	// local (only mapped values leave the task); Camunda 7 writes them as
	// usual, outputs on top.
	resultStaysLocal bool
}

var camundaOrders = []camundaOrder{
	{platform: "Camunda 7", files: []string{"order-c7.bpmn", "shipping-c7.bpmn"}, order: "order-c7", shipping: "shipping-c7",
		labelType: "print-label"},
	{platform: "Camunda 8", files: []string{"order-c8.bpmn", "shipping-c8.bpmn"}, order: "order-c8", shipping: "shipping-c8",
		labelType: "print-label-eu", resultStaysLocal: true},
}

// deployCamunda deploys testdata/camunda/files in one deployment.
func deployCamunda(t *testing.T, b *bundle, files []string) {
	t.Helper()
	var parts []part
	for _, name := range files {
		xml, err := os.ReadFile(filepath.Join("testdata", "camunda", name))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, part{filename: name, content: string(xml)})
	}
	b.postMultipart("/api/v1/deployments", parts...).wantStatus(t, http.StatusCreated)
}

// workOne activates the one open job of typ as a worker would, completes
// it with vars (a JSON object) and returns the job as activated. The lock
// token the activation answered goes back with the completion.
func workOne(t *testing.T, b *bundle, typ, vars string) map[string]any {
	t.Helper()
	jobs := activate(t, b, typ, "camunda-worker", 60_000)
	if len(jobs) != 1 {
		t.Fatalf("%s jobs = %v, want one", typ, jobs)
	}
	job := jobs[0]
	body := `{"variables":` + vars + `}`
	if _, ok := job["lockToken"].(string); ok {
		body = withToken(job, `"variables":`+vars)
	}
	b.postJSON("/api/v1/jobs/"+job["key"].(string)+"/complete", body).noContent(t)
	return job
}

// headersOf reads a job's customHeaders.
func headersOf(t *testing.T, job map[string]any) map[string]string {
	t.Helper()
	raw, ok := job["customHeaders"].(map[string]any)
	if !ok {
		t.Fatalf("job has no customHeaders object: %v", job)
	}
	out := map[string]string{}
	for k, v := range raw {
		out[k] = fmt.Sprint(v)
	}
	return out
}

func TestIntegrationCamundaOrder(t *testing.T) {
	t.Parallel()
	const (
		large = `{"id":"o-1","region":"eu","lines":[{"sku":"a","price":500,"quantity":2},{"sku":"b","price":250,"quantity":2}]}`
		small = `{"id":"o-2","region":"eu","lines":[{"sku":"c","price":10,"quantity":2}]}`
	)
	scenarios := []struct {
		name      string
		order     string
		total     string
		lines     string
		approval  string // the manager's answer, "" when no approval is asked
		shipped   bool
		finalNode string
	}{
		{name: "large order approved", order: large, total: "1500", lines: "2", approval: "true", shipped: true, finalNode: "EndEvent_shipped"},
		{name: "large order rejected", order: large, total: "1500", lines: "2", approval: "false", finalNode: "EndEvent_rejected"},
		{name: "small order", order: small, total: "20", lines: "1", shipped: true, finalNode: "EndEvent_shipped"},
	}
	for _, p := range camundaOrders {
		for _, sc := range scenarios {
			t.Run(p.platform+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				b := setupReal(t)
				deployCamunda(t, b, p.files)
				inst := b.postJSON("/api/v1/processes/"+p.order+"/instances",
					`{"businessKey":"order-1","variables":{"order":`+sc.order+`}}`).wantStatus(t, http.StatusCreated).object(t)
				id := inst["id"].(string)

				// The script task computed the total; the external task gets
				// the input mappings and the model's headers.
				reserve := workOne(t, b, "reserve-stock", `{"reservation":"r-9"}`)
				if want := map[string]string{"warehouse": "north", "mode": "strict"}; !maps.Equal(headersOf(t, reserve), want) {
					t.Errorf("reserve-stock headers = %v, want %v", reserve["customHeaders"], want)
				}
				seen := reserve["variables"].(map[string]any)
				if seen["orderId"] != orderID(sc.order) || seen["lineCount"] != json.Number(sc.lines) || seen["total"] != json.Number(sc.total) {
					t.Errorf("reserve-stock sees %v", seen)
				}

				if sc.approval != "" {
					tasks := b.get("/api/v1/tasks?candidateGroup=managers&instanceId="+id).wantStatus(t, http.StatusOK).items(t)
					if len(tasks) != 1 {
						t.Fatalf("manager tasks = %v", tasks)
					}
					task := tasks[0].(map[string]any)
					if task["nodeId"] != "Task_approve" || mustJSON(t, task["candidateGroups"]) != `["managers"]` {
						t.Errorf("task = %v", task)
					}
					path := "/api/v1/tasks/" + task["id"].(string)
					b.as("carol", "sales", path+"/claim", "").problem(t, http.StatusForbidden, "forbidden")
					b.as("dave", "managers", path+"/claim", "").wantStatus(t, http.StatusOK)
					b.as("dave", "managers", path+"/complete", `{"variables":{"approved":`+sc.approval+`}}`).noContent(t)
				} else if tasks := b.get("/api/v1/tasks?instanceId=" + id).items(t); len(tasks) != 0 {
					t.Errorf("a small order asked for approval: %v", tasks)
				}

				if sc.shipped {
					children := b.get("/api/v1/instances?parentId="+id).wantStatus(t, http.StatusOK).items(t)
					if len(children) != 1 || children[0].(map[string]any)["processKey"] != p.shipping {
						t.Fatalf("children = %v", children)
					}
					if bk := children[0].(map[string]any)["businessKey"]; bk != "order-1" {
						t.Errorf("child business key = %v, want the caller's", bk)
					}
					label := workOne(t, b, p.labelType, `{"trackingId":"TRK-1","carrierNote":"fragile"}`)
					if want := map[string]string{"format": "pdf"}; !maps.Equal(headersOf(t, label), want) {
						t.Errorf("%s headers = %v", p.labelType, label["customHeaders"])
					}
					if v := label["variables"].(map[string]any); v["region"] != "eu" || v["order"] == nil {
						t.Errorf("the child sees %v, want the order and region eu", v)
					}
				} else if jobs := activate(t, b, p.labelType, "camunda-worker", 60_000); len(jobs) != 0 {
					t.Errorf("a rejected order was shipped: %v", jobs)
				}

				done := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
				vars := done["variables"].(map[string]any)
				if done["status"] != "completed" || !completedNodes(t, b, id)[sc.finalNode] {
					t.Fatalf("instance %s ended at %v: %v", done["status"], completedNodes(t, b, id), done)
				}
				if vars["total"] != json.Number(sc.total) || vars["reservationId"] != "r-9" {
					t.Errorf("variables = %v, want total %s and reservationId r-9", vars, sc.total)
				}
				if _, leaked := vars["reservation"]; leaked != !p.resultStaysLocal {
					t.Errorf("reservation in the instance: %v; want %v (%s output mapping semantics)", leaked, !p.resultStaysLocal, p.platform)
				}
				if sc.shipped {
					if vars["trackingId"] != "TRK-1" {
						t.Errorf("trackingId = %v, want the child's", vars["trackingId"])
					}
					if _, leaked := vars["carrierNote"]; leaked {
						t.Error("a child variable the call activity does not hand back reached the caller")
					}
				}
			})
		}
	}
}

// orderID reads the id of an order JSON.
func orderID(order string) string {
	var o struct{ ID string }
	_ = json.Unmarshal([]byte(order), &o)
	return o.ID
}
