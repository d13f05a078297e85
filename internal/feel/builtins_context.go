package feel

// Context functions and is(). Contexts are Go maps, so get entries and
// string() list the keys in sorted order.

func init() {
	register("get value", "m, key", 2, 2, func(_ *evaluator, a []any) any {
		m, ok := a[0].(map[string]any)
		if !ok {
			return nil
		}
		switch k := a[1].(type) {
		case string:
			return norm(m[k])
		case []any:
			var v any = m
			for _, kk := range k {
				s, ok := norm(kk).(string)
				cm, isCtx := v.(map[string]any)
				if !ok || !isCtx {
					return nil
				}
				v = norm(cm[s])
			}
			return v
		}
		return nil
	})
	register("get entries", "m", 1, 1, func(ev *evaluator, a []any) any {
		m, ok := a[0].(map[string]any)
		if !ok || !ev.tick(len(m)) {
			return nil
		}
		out := make([]any, 0, len(m))
		for _, k := range sortedKeys(m) {
			out = append(out, map[string]any{"key": k, "value": norm(m[k])})
		}
		return out
	})
	register("context put", "context, key, value|context, keys, value", 3, 3, func(ev *evaluator, a []any) any {
		switch k := a[1].(type) {
		case string:
			return contextPut(a[0], []any{k}, a[2], 0)
		case []any:
			if len(k) == 0 {
				return nil
			}
			return contextPut(a[0], k, a[2], 0)
		}
		return nil
	})
	register("context merge", "contexts", 1, 1, func(ev *evaluator, a []any) any {
		l, ok := a[0].([]any)
		if !ok {
			return nil
		}
		out := map[string]any{}
		for _, el := range l {
			m, ok := norm(el).(map[string]any)
			if !ok || !ev.tick(len(m)) {
				return nil
			}
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	})
	register("context", "entries", 1, 1, func(ev *evaluator, a []any) any {
		l, ok := a[0].([]any)
		if !ok || !ev.tick(len(l)) {
			return nil
		}
		out := map[string]any{}
		for _, el := range l {
			e, ok := norm(el).(map[string]any)
			if !ok {
				return nil
			}
			k, ok := norm(e["key"]).(string)
			if _, has := e["value"]; !ok || !has {
				return nil
			}
			if _, dup := out[k]; dup {
				return nil
			}
			out[k] = e["value"]
		}
		return out
	})
	register("is", "value1, value2", 2, 2, func(_ *evaluator, a []any) any { return is(a[0], a[1]) })
}

// contextPut returns a copy of c with the value at the key path set.
func contextPut(c any, keys []any, v any, depth int) any {
	m, ok := c.(map[string]any)
	if !ok || depth > maxValueDepth {
		return nil
	}
	k, ok := norm(keys[0]).(string)
	if !ok {
		return nil
	}
	out := make(map[string]any, len(m)+1)
	for kk, vv := range m {
		out[kk] = vv
	}
	if len(keys) == 1 {
		out[k] = v
		return out
	}
	inner := norm(m[k])
	if inner == nil {
		inner = map[string]any{}
	}
	nv := contextPut(inner, keys[1:], v, depth+1)
	if nv == nil {
		return nil
	}
	out[k] = nv
	return out
}

// is reports whether a and b are the same value of the same type: unlike
// =, a date and time in one zone is not another zone's same instant.
func is(a, b any) any {
	a, b = norm(a), norm(b)
	if typeName(a) != typeName(b) {
		return false
	}
	switch x := a.(type) {
	case Time:
		y := b.(Time)
		return x == y
	case DateTime:
		y := b.(DateTime)
		return x == y
	}
	return equal(a, b, 0) == true
}
