package feel

import (
	"github.com/cockroachdb/apd/v3"
)

// Numeric functions beyond the rounding family in builtins.go. Results
// are rounded to 34 digits; an undefined result (sqrt of a negative
// number, log of zero) is null.

func init() {
	register("sqrt", "number", 1, 1, decFn(func(z, x *apd.Decimal) (apd.Condition, error) {
		if x.Negative && !x.IsZero() {
			return apd.InvalidOperation, nil
		}
		return decCtx.Sqrt(z, x)
	}))
	register("log", "number", 1, 1, decFn(func(z, x *apd.Decimal) (apd.Condition, error) {
		if x.Sign() <= 0 {
			return apd.InvalidOperation, nil
		}
		return decCtx.Ln(z, x)
	}))
	register("exp", "number", 1, 1, decFn(func(z, x *apd.Decimal) (apd.Condition, error) {
		if x.Cmp(apd.New(15000, 0)) > 0 {
			return apd.Overflow, nil
		}
		if x.Cmp(apd.New(-15000, 0)) < 0 {
			z.SetInt64(0)
			return 0, nil
		}
		return decCtx.Exp(z, x)
	}))
	register("odd", "number", 1, 1, parity(true))
	register("even", "number", 1, 1, parity(false))
}

// decFn wraps a one-argument decimal operation.
func decFn(op func(z, x *apd.Decimal) (apd.Condition, error)) func(*evaluator, []any) any {
	return func(_ *evaluator, a []any) any {
		x, ok := a[0].(*apd.Decimal)
		if !ok {
			return nil
		}
		z := new(apd.Decimal)
		cond, err := op(z, x)
		if r := decResult(z, cond, err); r != nil {
			out, _ := new(apd.Decimal).Reduce(z)
			return out
		}
		return nil
	}
}

func parity(odd bool) func(*evaluator, []any) any {
	return func(_ *evaluator, a []any) any {
		x, ok := a[0].(*apd.Decimal)
		if !ok {
			return nil
		}
		var integ, frac apd.Decimal
		x.Modf(&integ, &frac)
		if !frac.IsZero() {
			return nil
		}
		r := new(apd.Decimal)
		if _, err := decCtx.Rem(r, &integ, apd.New(2, 0)); err != nil {
			return nil
		}
		return r.IsZero() != odd
	}
}
