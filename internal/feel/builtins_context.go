package feel

// Context functions and is(). Contexts keep their entries in order:
// get entries lists them as written or added.

func init() {
	register("get value", "m:context, key:any", func(ev *evaluator, a []any) any {
		m := a[0].(*ctxVal)
		switch k := a[1].(type) {
		case string:
			v, _ := m.get(k)
			return v
		case []any:
			var v any = m
			for _, kk := range k {
				s, ok := norm(kk).(string)
				if !ok {
					return ev.errorf("get value: the keys must be strings, not a %s", typeName(norm(kk)))
				}
				cm, isCtx := v.(*ctxVal)
				if !isCtx {
					return nil
				}
				v, _ = cm.get(s)
			}
			return v
		}
		return ev.errorf("get value: key must be a string or a list of strings, not a %s", typeName(a[1]))
	})
	register("get entries", "m:context", func(ev *evaluator, a []any) any {
		m := a[0].(*ctxVal)
		if !ev.tick(m.len()) {
			return nil
		}
		out := make([]any, 0, m.len())
		for _, k := range m.order() {
			e := newCtx(2)
			e.set("key", k)
			v, _ := m.get(k)
			e.set("value", v)
			out = append(out, e)
		}
		return out
	})
	register("context put", "context:context, key:string, value | context:context, keys:list, value", func(ev *evaluator, a []any) any {
		var keys []any
		switch k := a[1].(type) {
		case string:
			keys = []any{k}
		case []any:
			if len(k) == 0 {
				return ev.errorf("context put: the list of keys is empty")
			}
			keys = k
		}
		for _, k := range keys {
			if _, ok := norm(k).(string); !ok {
				return ev.errorf("context put: the keys must be strings, not a %s", typeName(norm(k)))
			}
		}
		if !ev.tick(a[0].(*ctxVal).len()) {
			return nil
		}
		r := contextPut(a[0].(*ctxVal), keys, a[2], 0)
		if r == nil {
			return ev.errorf("context put: the key path goes through a value that is not a context")
		}
		return r
	})
	register("context merge", "contexts:list", func(ev *evaluator, a []any) any {
		out := newCtx(0)
		for _, el := range a[0].([]any) {
			m, ok := norm(el).(*ctxVal)
			if !ok {
				return ev.errorf("context merge: the list holds a %s, not only contexts", typeName(norm(el)))
			}
			if !ev.tick(m.len()) {
				return nil
			}
			for _, k := range m.order() {
				out.set(k, m.vals[k])
			}
		}
		return out
	})
	register("context", "entries:list", func(ev *evaluator, a []any) any {
		l := a[0].([]any)
		if !ev.tick(len(l)) {
			return nil
		}
		out := newCtx(len(l))
		for _, el := range l {
			e, ok := norm(el).(*ctxVal)
			if !ok {
				return ev.errorf("context: an entry is a %s, not a context with key and value", typeName(norm(el)))
			}
			kv, _ := e.get("key")
			k, ok := kv.(string)
			if !ok {
				return ev.errorf("context: an entry's key is a %s, not a string", typeName(kv))
			}
			v, has := e.get("value")
			if !has {
				return ev.errorf("context: the entry %q has no value", k)
			}
			if _, dup := out.vals[k]; dup {
				return ev.errorf("context: the key %q is given twice", k)
			}
			out.set(k, v)
		}
		return out
	})
	register("is", "value1, value2", func(ev *evaluator, a []any) any { return ev.is(a[0], a[1]) })
}

// contextPut returns a copy of c with the value at the key path set (a
// new key is added at the end, an existing one keeps its place).
func contextPut(c *ctxVal, keys []any, v any, depth int) any {
	if depth > maxValueDepth {
		return nil
	}
	k := norm(keys[0]).(string)
	out := c.clone(1)
	if len(keys) == 1 {
		out.set(k, v)
		return out
	}
	inner, _ := c.get(k)
	ic, ok := inner.(*ctxVal)
	if !ok {
		if inner != nil {
			return nil // the path goes through a value that is not a context
		}
		ic = newCtx(1)
	}
	nv := contextPut(ic, keys[1:], v, depth+1)
	if nv == nil {
		return nil
	}
	out.set(k, nv)
	return out
}

// is reports whether a and b are the same value of the same type: unlike
// =, a time or date and time in one zone is not another zone's (or
// offset's) same instant. Lists and contexts cost what = costs.
func (ev *evaluator) is(a, b any) any {
	a, b = norm(a), norm(b)
	if typeName(a) != typeName(b) {
		return false
	}
	switch x := a.(type) {
	case Time:
		return sameTime(x, b.(Time))
	case DateTime:
		y := b.(DateTime)
		return x.date == y.date && sameTime(x.time, y.time)
	}
	return ev.equal(a, b, 0) == true
}

// sameTime compares two times field by field: local time, and the same
// offset (Z is +00:00) or the same zone.
func sameTime(x, y Time) bool {
	return x.hour == y.hour && x.minute == y.minute && x.second == y.second && x.nano == y.nano &&
		x.hasOffset == y.hasOffset && x.offset == y.offset && x.zone == y.zone
}
