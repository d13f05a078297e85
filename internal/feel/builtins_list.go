package feel

import (
	"sort"

	"github.com/cockroachdb/apd/v3"
)

// List functions. Lists may come from the scope with elements in caller
// shape, so elements are normalised as they are read.

func init() {
	register("sublist", "list:list, start position:number, [length:number]", fnSublist)
	register("append", "list:list, item...", func(ev *evaluator, a []any) any {
		l := a[0].([]any)
		if !ev.tick(len(l) + len(a)) {
			return nil
		}
		return append(normList(l), a[1:]...)
	})
	register("concatenate", "list:list...", func(ev *evaluator, a []any) any {
		out := []any{}
		for _, x := range a {
			l := x.([]any)
			if !ev.tick(len(l)) {
				return nil
			}
			out = append(out, normList(l)...)
		}
		return out
	})
	register("insert before", "list:list, position:number, newItem", func(ev *evaluator, a []any) any {
		l := a[0].([]any)
		i, ok := position(a[1], len(l))
		if !ok {
			return ev.errorf("insert before: position %s is outside a list of %d", numText(a[1].(*apd.Decimal)), len(l))
		}
		if !ev.tick(len(l)) {
			return nil
		}
		out := make([]any, 0, len(l)+1)
		out = append(out, normList(l[:i])...)
		out = append(out, a[2])
		return append(out, normList(l[i:])...)
	})
	register("remove", "list:list, position:number", func(ev *evaluator, a []any) any {
		l := a[0].([]any)
		i, ok := position(a[1], len(l))
		if !ok {
			return ev.errorf("remove: position %s is outside a list of %d", numText(a[1].(*apd.Decimal)), len(l))
		}
		if !ev.tick(len(l)) {
			return nil
		}
		return append(normList(l[:i]), normList(l[i+1:])...)
	})
	register("list replace", "list:list, position:any, newItem|list:list, match:function, newItem", fnListReplace)
	register("reverse", "list:list", func(ev *evaluator, a []any) any {
		l := a[0].([]any)
		if !ev.tick(len(l)) {
			return nil
		}
		out := make([]any, len(l))
		for i, el := range l {
			out[len(l)-1-i] = norm(el)
		}
		return out
	})
	register("index of", "list:list, match", func(ev *evaluator, a []any) any {
		l := a[0].([]any)
		if !ev.tick(len(l)) {
			return nil
		}
		out := []any{}
		for i, el := range l {
			if ev.equal(el, a[1], 0) == true {
				out = append(out, intDec(i+1))
			}
		}
		if ev.err != nil {
			return nil
		}
		return out
	})
	register("union", "list:list...", func(ev *evaluator, a []any) any {
		var all []any
		for _, x := range a {
			all = append(all, x.([]any)...)
		}
		return ev.distinct(all)
	})
	register("distinct values", "list:list", func(ev *evaluator, a []any) any { return ev.distinct(a[0].([]any)) })
	register("flatten", "list:list", func(ev *evaluator, a []any) any {
		out := []any{}
		if !ev.flatten(&out, a[0].([]any), 0) {
			return nil
		}
		return out
	})
	registerList("product", fnProduct)
	registerList("mean", fnMean)
	registerList("median", fnMedian)
	registerList("stddev", fnStddev)
	registerList("mode", fnMode)
	registerList("all", func(ev *evaluator, a []any) any { return ev.allAny("all", a[0].([]any), true) })
	registerList("any", func(ev *evaluator, a []any) any { return ev.allAny("any", a[0].([]any), false) })
	register("sort", "list:list, [precedes:function]", fnSort)
}

// normList copies l with its elements normalised.
func normList(l []any) []any {
	out := make([]any, len(l))
	for i, el := range l {
		out[i] = norm(el)
	}
	return out
}

// position converts a 1-based (negative: from the end) position in a
// list of n elements to a 0-based index; a fraction is dropped.
func position(v any, n int) (int, bool) {
	p, ok := truncArg(v)
	switch {
	case !ok || p == 0:
		return 0, false
	case p > 0 && p <= n:
		return p - 1, true
	case p < 0 && -p <= n:
		return n + p, true
	}
	return 0, false
}

func fnSublist(ev *evaluator, a []any) any {
	l := a[0].([]any)
	i, ok := position(a[1], len(l))
	if !ok {
		return ev.errorf("sublist: start position %s is outside a list of %d", numText(a[1].(*apd.Decimal)), len(l))
	}
	if !ev.tick(len(l)) {
		return nil
	}
	end := len(l)
	if len(a) > 2 {
		n, ok := truncArg(a[2])
		if !ok || n < 0 || i+n > len(l) {
			return ev.errorf("sublist: length %s goes past the end of the list", numText(a[2].(*apd.Decimal)))
		}
		end = i + n
	}
	return normList(l[i:end])
}

func fnListReplace(ev *evaluator, a []any) any {
	l := a[0].([]any)
	if !ev.tick(len(l)) {
		return nil
	}
	out := normList(l)
	if f, ok := a[1].(Function); ok {
		if n := len(f.Params()); n != 2 {
			return ev.errorf("list replace: the match function must take 2 parameters, not %d", n)
		}
		for i, el := range out {
			switch ev.call(f, []any{el, a[2]}, nil) {
			case true:
				out[i] = a[2]
			case false:
			default:
				return ev.errorf("list replace: the match function did not return a boolean")
			}
		}
		return out
	}
	if _, ok := a[1].(*apd.Decimal); !ok {
		return ev.errorf("list replace: position must be a number or a function, not a %s", typeName(a[1]))
	}
	i, ok := position(a[1], len(l))
	if !ok {
		return ev.errorf("list replace: position %s is outside a list of %d", numText(a[1].(*apd.Decimal)), len(l))
	}
	out[i] = a[2]
	return out
}

// distinct keeps the first of each group of equal elements. Numbers,
// strings, booleans and null are deduplicated by hashing; other values
// (lists, contexts, temporal values) pairwise.
func (ev *evaluator) distinct(l []any) any {
	if !ev.tick(len(l)) {
		return nil
	}
	out := []any{}
	seen := map[string]bool{}
	var others []any
outer:
	for _, el := range l {
		el = norm(el)
		if k, ok := hashKey(el); ok {
			if !seen[k] {
				seen[k] = true
				out = append(out, el)
			}
			continue
		}
		if !ev.tick(len(others)) {
			return nil
		}
		for _, o := range others {
			if ev.equal(o, el, 0) == true {
				continue outer
			}
		}
		if ev.err != nil {
			return nil
		}
		others = append(others, el)
		out = append(out, el)
	}
	return out
}

// hashKey returns a key under which equal scalars collide.
func hashKey(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "z", true
	case bool:
		if x {
			return "t", true
		}
		return "f", true
	case string:
		return "s" + x, true
	case *apd.Decimal:
		return "n" + numText(x), true
	}
	return "", false
}

func (ev *evaluator) flatten(out *[]any, l []any, depth int) bool {
	if depth > maxValueDepth || !ev.tick(len(l)) {
		return false
	}
	for _, el := range l {
		el = norm(el)
		if sub, ok := el.([]any); ok {
			if !ev.flatten(out, sub, depth+1) {
				return false
			}
			continue
		}
		*out = append(*out, el)
	}
	return true
}

// numbers returns the elements of a list argument as numbers, recording
// an error for any other element. It spends a step per element: the
// functions over numbers (product, mean, stddev, …) do a decimal
// operation on each.
func (ev *evaluator) numbers(name string, a []any) ([]*apd.Decimal, bool) {
	l := a[0].([]any)
	if !ev.tick(2 * len(l)) {
		return nil, false
	}
	out := make([]*apd.Decimal, len(l))
	for i, el := range l {
		d, ok := norm(el).(*apd.Decimal)
		if !ok {
			ev.errorf("%s: the list holds a %s, not only numbers", name, typeName(norm(el)))
			return nil, false
		}
		out[i] = d
	}
	return out, true
}

func fnProduct(ev *evaluator, a []any) any {
	ns, ok := ev.numbers("product", a)
	if !ok {
		return nil
	}
	if len(ns) == 0 {
		return ev.errorf("product: the list is empty")
	}
	p := apd.New(1, 0)
	for _, d := range ns {
		z := new(apd.Decimal)
		cond, err := decCtx.Mul(z, p, d)
		if decResult(z, cond, err) == nil {
			return ev.errorf("product: out of range")
		}
		p = z
	}
	return p
}

func sumOf(ns []*apd.Decimal) *apd.Decimal {
	s := new(apd.Decimal)
	for _, d := range ns {
		z := new(apd.Decimal)
		cond, err := decCtx.Add(z, s, d)
		if decResult(z, cond, err) == nil {
			return nil
		}
		s = z
	}
	return s
}

func fnMean(ev *evaluator, a []any) any {
	ns, ok := ev.numbers("mean", a)
	if !ok || len(ns) == 0 {
		return nil
	}
	s := sumOf(ns)
	if s == nil {
		return ev.errorf("mean: out of range")
	}
	z := new(apd.Decimal)
	cond, err := decCtx.Quo(z, s, intDec(len(ns)))
	return decResult(z, cond, err)
}

// sortedNumbers sorts a copy of ns, spending n·log₂ n steps (the
// comparisons of a sort); false when the budget is gone.
func (ev *evaluator) sortedNumbers(ns []*apd.Decimal) ([]*apd.Decimal, bool) {
	if !ev.tick(sortCost(len(ns))) {
		return nil, false
	}
	s := append([]*apd.Decimal(nil), ns...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].Cmp(s[j]) < 0 })
	return s, true
}

func fnMedian(ev *evaluator, a []any) any {
	ns, ok := ev.numbers("median", a)
	if !ok || len(ns) == 0 {
		return nil
	}
	s, ok := ev.sortedNumbers(ns)
	if !ok {
		return nil
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	z := new(apd.Decimal)
	if _, err := decCtx.Add(z, s[len(s)/2-1], s[len(s)/2]); err != nil {
		return nil
	}
	cond, err := decCtx.Quo(z, z, apd.New(2, 0))
	return decResult(z, cond, err)
}

// fnStddev is the sample standard deviation.
func fnStddev(ev *evaluator, a []any) any {
	ns, ok := ev.numbers("stddev", a)
	if !ok {
		return nil
	}
	if len(ns) < 2 {
		return ev.errorf("stddev: needs at least two numbers, got %d", len(ns))
	}
	m, ok := fnMean(ev, []any{toAnyList(ns)}).(*apd.Decimal)
	if !ok {
		return nil
	}
	ss := new(apd.Decimal)
	for _, d := range ns {
		diff := new(apd.Decimal)
		decCtx.Sub(diff, d, m)
		decCtx.Mul(diff, diff, diff)
		decCtx.Add(ss, ss, diff)
	}
	z := new(apd.Decimal)
	if _, err := decCtx.Quo(z, ss, intDec(len(ns)-1)); err != nil {
		return nil
	}
	cond, err := decCtx.Sqrt(z, z)
	return decResult(z, cond, err)
}

func toAnyList(ns []*apd.Decimal) []any {
	out := make([]any, len(ns))
	for i, d := range ns {
		out[i] = d
	}
	return out
}

// fnMode returns the most frequent numbers, ascending.
func fnMode(ev *evaluator, a []any) any {
	ns, ok := ev.numbers("mode", a)
	if !ok {
		return nil
	}
	s, ok := ev.sortedNumbers(ns)
	if !ok {
		return nil
	}
	best := 0
	var out []any
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j].Cmp(s[i]) == 0 {
			j++
		}
		switch n := j - i; {
		case n > best:
			best, out = n, []any{s[i]}
		case n == best:
			out = append(out, s[i])
		}
		i = j
	}
	if out == nil {
		return []any{}
	}
	return out
}

// allAny implements all() (conj) and any() over booleans: a null element
// makes the result null unless a deciding value is found, any other
// element is an error.
func (ev *evaluator) allAny(name string, l []any, conj bool) any {
	if !ev.tick(len(l)) {
		return nil
	}
	var res any = conj
	for _, el := range l {
		switch el = norm(el); el {
		case !conj:
			res = !conj
		case conj:
		case nil:
			if res == conj {
				res = nil
			}
		default:
			return ev.errorf("%s: the list holds a %s, not only booleans", name, typeName(el))
		}
	}
	return res
}

// fnSort sorts with precedes(a, b) (or ascending by < without it). A
// comparison that is not a boolean, or elements that cannot be ordered,
// make the result null with an error.
func fnSort(ev *evaluator, a []any) any {
	out := normList(a[0].([]any))
	var f Function
	if len(a) > 1 && a[1] != nil {
		f = a[1].(Function)
	}
	bad := false
	sort.SliceStable(out, func(i, j int) bool {
		if bad || !ev.tick(1) {
			bad = true
			return false
		}
		if f == nil {
			c, ok := ev.compare(out[i], out[j])
			if !ok {
				bad = true
			}
			return c < 0
		}
		r, ok := ev.call(f, []any{out[i], out[j]}, nil).(bool)
		if !ok {
			bad = true
		}
		return r
	})
	if bad {
		if ev.err != nil {
			return nil
		}
		return ev.errorf("sort: the elements cannot be ordered")
	}
	return out
}

// sortCost is the step cost of sorting n elements: n·log₂ n comparisons.
func sortCost(n int) int {
	c := 0
	for m := n; m > 1; m >>= 1 {
		c += n
	}
	return c
}
