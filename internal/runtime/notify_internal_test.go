package runtime

import "testing"

// closed reports whether ch is closed, without blocking.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestNotifierWakesOneWaiterPerNotify(t *testing.T) {
	n := newNotifier()
	a, releaseA := n.wait("pay")
	b, releaseB := n.wait("pay")
	c, releaseC := n.wait("pay")
	other, releaseOther := n.wait("ship")

	n.notify("pay")
	if !closed(a) || closed(b) || closed(c) {
		t.Fatalf("after one notify: woken a=%v b=%v c=%v, want only the oldest (a)", closed(a), closed(b), closed(c))
	}
	if closed(other) {
		t.Fatal("a notify of pay woke a waiter of ship")
	}
	releaseA(true) // a looks again: the wake-up is used
	if closed(b) {
		t.Fatal("a consumed wake-up was passed on")
	}

	n.notify("pay")
	if !closed(b) || closed(c) {
		t.Fatalf("second notify: woken b=%v c=%v, want b only", closed(b), closed(c))
	}
	releaseB(false) // b returns jobs it had already found: c must get the wake-up
	if !closed(c) {
		t.Fatal("an unused wake-up was lost instead of passed on")
	}
	releaseC(false) // nobody left to pass it to
	releaseOther(false)
	if got := n.len(); got != 0 {
		t.Fatalf("keys left after every waiter released: %d", got)
	}
}

func TestNotifierReleaseWithoutWakeLeavesOthersQueued(t *testing.T) {
	n := newNotifier()
	_, releaseA := n.wait("pay")
	b, releaseB := n.wait("pay")
	releaseA(false) // a's poll ended before any job came
	n.notify("pay")
	if !closed(b) {
		t.Fatal("the notify after a left did not wake b")
	}
	releaseB(true)
	n.notify("pay") // no waiter: nothing to do, nothing kept
	if got := n.len(); got != 0 {
		t.Fatalf("keys left: %d", got)
	}
}
