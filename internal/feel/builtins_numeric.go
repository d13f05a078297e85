package feel

import (
	"github.com/cockroachdb/apd/v3"
)

// Numeric functions beyond the rounding family in builtins.go. Results
// are rounded to 34 digits; an undefined result (sqrt of a negative
// number, log of zero) is null with an error.

func init() {
	register("sqrt", "number:number", decFn("sqrt", func(z, x *apd.Decimal) (apd.Condition, error) {
		if x.Negative && !x.IsZero() {
			return apd.InvalidOperation, nil
		}
		return decCtx.Sqrt(z, x)
	}))
	register("log", "number:number", decFn("log", func(z, x *apd.Decimal) (apd.Condition, error) {
		if x.Sign() <= 0 {
			return apd.InvalidOperation, nil
		}
		return decCtx.Ln(z, x)
	}))
	register("exp", "number:number", decFn("exp", func(z, x *apd.Decimal) (apd.Condition, error) {
		if x.Cmp(apd.New(15000, 0)) > 0 {
			return apd.Overflow, nil
		}
		if x.Cmp(apd.New(-15000, 0)) < 0 {
			z.SetInt64(0)
			return 0, nil
		}
		return decCtx.Exp(z, x)
	}))
	register("odd", "number:number", parity("odd", true))
	register("even", "number:number", parity("even", false))
}

// decFn wraps a one-argument decimal operation.
func decFn(name string, op func(z, x *apd.Decimal) (apd.Condition, error)) func(*evaluator, []any) any {
	return func(ev *evaluator, a []any) any {
		x := a[0].(*apd.Decimal)
		z := new(apd.Decimal)
		cond, err := op(z, x)
		if r := decResult(z, cond, err); r != nil {
			out, _ := new(apd.Decimal).Reduce(z)
			return out
		}
		return ev.errorf("%s(%s) is undefined", name, numText(x))
	}
}

func parity(name string, odd bool) func(*evaluator, []any) any {
	return func(ev *evaluator, a []any) any {
		x := a[0].(*apd.Decimal)
		var integ, frac apd.Decimal
		x.Modf(&integ, &frac)
		if !frac.IsZero() {
			return ev.errorf("%s: %s is not an integer", name, numText(x))
		}
		r := new(apd.Decimal)
		if _, err := decCtx.Rem(r, &integ, apd.New(2, 0)); err != nil {
			return nil
		}
		return r.IsZero() != odd
	}
}
