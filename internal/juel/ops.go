package juel

// The binary operators, following EL 2.2 sections 1.7 (arithmetic) and
// 1.8 (relational and equality) and the order of type tests in Camunda's
// JUEL. In the spec's terms a JSON integer is a Long (a BigInteger beyond
// the long range), and a JSON number with a fraction or exponent is a
// Double whose value is held exactly.

// arithmetic applies + - * / div % mod.
func arithmetic(op kind, a, b any) (any, error) {
	if a == nil && b == nil {
		return newInt(0), nil // A and B null: (Long) 0
	}
	if op == tDiv {
		// A / B: BigDecimal and BigInteger aside (gobpm has none, see
		// quotient), coerce both to Double.
		x, err := coerceDouble(a)
		if err != nil {
			return nil, err
		}
		y, err := coerceDouble(b)
		if err != nil {
			return nil, err
		}
		return quotient(x, y)
	}
	flt, err := floating(a, b)
	if err != nil {
		return nil, err
	}
	var x, y *number
	if flt {
		// Either is a Double or a String containing '.', 'e' or 'E':
		// coerce both to Double.
		if x, err = coerceDouble(a); err == nil {
			y, err = coerceDouble(b)
		}
	} else {
		// Otherwise coerce both to Long.
		if x, err = coerceLong(a); err == nil {
			y, err = coerceLong(b)
		}
	}
	if err != nil {
		return nil, err
	}
	c := byte('+')
	switch op {
	case tMinus:
		c = '-'
	case tMul:
		c = '*'
	case tMod:
		c = '%'
	}
	return binary(c, x, y, flt)
}

// floating is the spec's test "A or B is a Float, Double, or a String
// containing '.', 'e' or 'E'".
func floating(a, b any) (bool, error) {
	for _, v := range []any{a, b} {
		f, err := isFloat(v)
		if err != nil {
			return false, err
		}
		if f || hasDotEe(v) {
			return true, nil
		}
	}
	return false, nil
}

// equal is == and eq (1.8.2): null equals only null; then, by the first
// rule that applies, a Double on either side compares both as Doubles
// (with Double.equals, so 0.0 is not -0.0), a Long both as Longs, a
// Boolean both as Booleans, a String both as Strings; otherwise Java's
// equals decides (lists and maps compare deeply).
func equal(a, b any) (bool, error) {
	if a == nil || b == nil {
		return a == nil && b == nil, nil
	}
	fa, err := isFloat(a)
	if err != nil {
		return false, err
	}
	fb, err := isFloat(b)
	if err != nil {
		return false, err
	}
	switch {
	case fa || fb:
		x, err := coerceDouble(a)
		if err != nil {
			return false, err
		}
		y, err := coerceDouble(b)
		if err != nil {
			return false, err
		}
		return x.javaEquals(y), nil
	case isNumeric(a) || isNumeric(b):
		x, err := coerceLong(a)
		if err != nil {
			return false, err
		}
		y, err := coerceLong(b)
		if err != nil {
			return false, err
		}
		return x.cmp(y) == 0, nil
	}
	_, ba := a.(bool)
	_, bb := b.(bool)
	if ba || bb {
		x, err := coerceBool(a)
		if err != nil {
			return false, err
		}
		y, err := coerceBool(b)
		if err != nil {
			return false, err
		}
		return x == y, nil
	}
	_, sa := a.(string)
	_, sb := b.(string)
	if sa || sb {
		x, err := coerceString(a)
		if err != nil {
			return false, err
		}
		y, err := coerceString(b)
		if err != nil {
			return false, err
		}
		return x == y, nil
	}
	return javaEquals(a, b)
}

// relate is < > <= >= and lt gt le ge (1.8.1): null <= null and
// null >= null are true (the same object), any other comparison with null
// is false; otherwise the operands are ordered by order.
func relate(op kind, a, b any) (bool, error) {
	if a == nil && b == nil {
		return op == tLe || op == tGe, nil
	}
	if a == nil || b == nil {
		return false, nil
	}
	c, err := order(a, b)
	if err != nil {
		return false, err
	}
	switch op {
	case tLt:
		return c < 0, nil
	case tGt:
		return c > 0, nil
	case tLe:
		return c <= 0, nil
	}
	return c >= 0, nil
}

// order compares two non-null values by the first rule that applies: a
// Double on either side compares both as Doubles, a Long both as Longs, a
// String both as Strings (by UTF-16 code units, as String.compareTo);
// two Booleans compare as Boolean.compareTo does (false < true); anything
// else is an error.
func order(a, b any) (int, error) {
	fa, err := isFloat(a)
	if err != nil {
		return 0, err
	}
	fb, err := isFloat(b)
	if err != nil {
		return 0, err
	}
	switch {
	case fa || fb:
		x, err := coerceDouble(a)
		if err != nil {
			return 0, err
		}
		y, err := coerceDouble(b)
		if err != nil {
			return 0, err
		}
		return x.cmp(y), nil
	case isNumeric(a) || isNumeric(b):
		x, err := coerceLong(a)
		if err != nil {
			return 0, err
		}
		y, err := coerceLong(b)
		if err != nil {
			return 0, err
		}
		return x.cmp(y), nil
	}
	_, sa := a.(string)
	_, sb := b.(string)
	if sa || sb {
		x, err := coerceString(a)
		if err != nil {
			return 0, err
		}
		y, err := coerceString(b)
		if err != nil {
			return 0, err
		}
		return compareUTF16(x, y), nil
	}
	x, xok := a.(bool)
	y, yok := b.(bool)
	if xok && yok {
		switch {
		case x == y:
			return 0, nil
		case y:
			return -1, nil
		}
		return 1, nil
	}
	return 0, failf("cannot compare %s with %s", describe(a), describe(b))
}
