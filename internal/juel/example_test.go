package juel_test

import (
	"encoding/json"
	"fmt"

	"github.com/gobpm/gobpm/internal/juel"
)

// vars is a Scope over a map.
type vars map[string]any

func (v vars) Lookup(name string) (any, bool) {
	x, ok := v[name]
	return x, ok
}

func Example() {
	cond, err := juel.Compile(`${amount > 1000 && not approved}`)
	if err != nil {
		panic(err)
	}
	v, err := cond.Eval(vars{"amount": json.Number("1500"), "approved": false})
	fmt.Println(v, err)
	// Output: true <nil>
}

func ExampleExpression_Eval_composite() {
	e, _ := juel.Compile(`Dear ${customer.name}, half of ${total} is ${total / 2}.`)
	v, _ := e.Eval(vars{
		"customer": map[string]any{"name": "Ann"},
		"total":    json.Number("7"),
	})
	fmt.Println(v, e.Composite())
	// Output: Dear Ann, half of 7 is 3.5. true
}

func ExampleExpression_Eval_numbers() {
	for _, src := range []string{`${7 / 2}`, `${4 / 2}`, `${1 / 3}`, `${0.1 + 0.2}`, `${'1' + 1}`, `${1e10}`} {
		e, _ := juel.Compile(src)
		v, _ := e.Eval(nil)
		fmt.Printf("%s = %#v\n", src, v)
	}
	// Output:
	// ${7 / 2} = "3.5"
	// ${4 / 2} = "2.0"
	// ${1 / 3} = "0.3333333333333333"
	// ${0.1 + 0.2} = "0.3"
	// ${'1' + 1} = "2"
	// ${1e10} = "1.0E10"
}

func ExampleCompile_refused() {
	_, err := juel.Compile(`${execution.setVariable('approved', true)}`)
	fmt.Println(err)
	_, err = juel.Compile(`${a + )}`)
	fmt.Println(err)
	// Output:
	// juel: at 13: execution.setVariable() is not supported: an expression only reads; gobpm sets variables through output mappings and job completion in "${execution.setVariable('approved', true)}"
	// juel: at 7: unexpected ')' in "${a + )}"
}
