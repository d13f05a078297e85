package cockpit

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/gobpm/gobpm/internal/httpsec"
	"github.com/gobpm/gobpm/internal/runtime"
)

// Topics of GET /events (the "topic" query parameter): what a page shows,
// so it hears only the changes that may alter it.
const (
	// topicAll is every change of a readable process (the dashboard and
	// the instance and process lists).
	topicAll = ""
	// topicTasks is any change of user tasks (the inbox).
	topicTasks = "tasks"
	// topicIncidents is any raised or resolved incident.
	topicIncidents = "incidents"
)

// eventsHeartbeat keeps an idle stream open through proxies that close
// silent connections.
const eventsHeartbeat = 25 * time.Second

// events streams server-sent events of what changed (an event "changed"
// per committed step a page may show), so the live regions refresh when
// something happened instead of polling every two seconds: a page that
// shows 10,000 instances costs nothing while nothing changes. With
// instance=<id> only that instance's steps and those of the instances it
// called (and every raised or resolved incident, which its page lists
// from further down) are sent; with topic=tasks or topic=incidents only
// those. A person who may not read a process hears nothing of its
// instances but the tasks they may be offered, without ids.
func (h *handler) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	q := r.URL.Query()
	instance, topic := runtime.InstanceID(q.Get("instance")), q.Get("topic")
	if topic != topicAll && topic != topicTasks && topic != topicIncidents {
		h.fail(w, r, http.StatusBadRequest, "The topic must be tasks or incidents (or none for every change).")
		return
	}
	release, ok := h.streams.Acquire(h.streamKey(r))
	if !ok {
		tooManyStreams(w, r, h.streams.Max())
		return
	}
	defer release()
	readable := h.readable(r)
	sub := h.svc.SubscribeChanges()
	defer sub.Close()

	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// A lost connection is retried by the browser after 5 s; meanwhile
	// the page polls.
	if _, err := fmt.Fprint(w, "retry: 5000\n: connected\n\n"); err != nil {
		return
	}
	if err := rc.Flush(); err != nil {
		// A writer that cannot stream: the page keeps polling.
		return
	}
	beat := time.NewTicker(eventsHeartbeat)
	defer beat.Stop()
	for {
		var msg string
		select {
		case <-r.Context().Done():
			return
		case <-sub.Done():
			return // the server shuts down; the browser reconnects to the next one
		case <-beat.C:
			msg = ": ping\n\n"
		case c := <-sub.C():
			if !sub.Lost() && !changeShown(c, instance, topic, readable) {
				continue
			}
			msg = changedEvent(c, readable)
		}
		if _, err := fmt.Fprint(w, msg); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}

// changeShown reports whether a page that listens to instance or topic
// shows what c changed.
func changeShown(c runtime.Change, instance runtime.InstanceID, topic string, readable func(string) bool) bool {
	switch {
	case topic == topicTasks:
		return c.Tasks
	case topic == topicIncidents:
		return c.Incidents && readable(c.ProcessKey)
	case instance != "":
		return (c.InstanceID == instance || c.ParentID == instance || c.Incidents) && readable(c.ProcessKey)
	}
	return readable(c.ProcessKey)
}

// changedEvent is the event of a change: the instance and its status for
// those who may read its process, nothing more for the others.
func changedEvent(c runtime.Change, readable func(string) bool) string {
	data := []byte("{}")
	if readable(c.ProcessKey) {
		data, _ = json.Marshal(struct {
			Instance runtime.InstanceID `json:"instance"`
			Status   string             `json:"status"`
		}{c.InstanceID, c.Status})
	}
	return "event: changed\ndata: " + string(data) + "\n\n"
}

// streamRetryAfter is the Retry-After, in seconds, of a stream refused
// because the person holds too many; the page polls meanwhile.
const streamRetryAfter = 30

// streamCap is the cap per person of Options.MaxEventStreams.
func streamCap(n int) int {
	if n == 0 {
		return httpsec.DefaultMaxHolds
	}
	return n
}

// streamKey names the person of r for the cap on event streams: the
// logged-in user, or — without logins, where the acting-as box names
// anyone, or not logged in — the client's address.
func (h *handler) streamKey(r *http.Request) string {
	if s := sessionFrom(r); h.authOn() && s.ok && s.caller.Authenticated() {
		return "user " + string(s.caller.User)
	}
	return "addr " + clientAddr(r)
}

// tooManyStreams refuses one stream more than the cap with a 429 problem
// and Retry-After (an EventSource does not show bodies; the page keeps
// polling).
func tooManyStreams(w http.ResponseWriter, r *http.Request, max int) {
	body, _ := json.Marshal(map[string]any{
		"type": "https://gobpm.dev/problems/too-many-requests", "title": "Too many requests", "status": http.StatusTooManyRequests,
		"detail":   fmt.Sprintf("this person already holds %d live-update streams open, the most one may: close a cockpit tab", max),
		"instance": r.URL.Path,
	})
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Retry-After", strconv.Itoa(streamRetryAfter))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write(body)
}
