package dmn

import "github.com/gobpm/gobpm/internal/feel"

// Definitions is a parsed and validated DMN model: its decisions, input
// data, business knowledge models and item definitions, with every FEEL
// expression already compiled. It is immutable and safe for concurrent use:
// any number of goroutines may call Evaluate at once.
type Definitions struct {
	// ID, Name and Namespace are the attributes of <definitions>.
	ID, Name, Namespace string
	// Decisions, InputData, BusinessKnowledgeModels, DecisionServices and
	// ItemDefinitions are listed in document order.
	Decisions               []*Decision
	InputData               []*InputData
	BusinessKnowledgeModels []*BKM
	DecisionServices        []*DecisionService
	ItemDefinitions         []*ItemDefinition
	// Imports are the model's <import>s, resolved against the other
	// documents of a ParseAll.
	Imports []*Import
	// Warnings lists the problems that did not stop the model from
	// loading: an expression that does not compile or calls what does not
	// exist, an unsupported boxed expression or function kind, a
	// decision without logic. The element holding one evaluates to null
	// with an error (see Result.Errors); the others evaluate normally. A
	// deployment should show them to its author.
	Warnings []Problem

	decisions map[string]*Decision        // by id
	byName    map[string]*Decision        // by name
	services  map[string]*DecisionService // by id and by name
}

// Import is an <import> of another DMN model: its elements are visible
// under the import's name ("myimport.Say Hello", "myimport.tPerson").
type Import struct {
	// Name is the import's name, the prefix of the imported names.
	Name string
	// Namespace is the imported model's namespace.
	Namespace string
	// ImportType is the importType attribute (the DMN namespace for a DMN model).
	ImportType string
	// Model is the imported model, nil when no document of the set has
	// its namespace (or it is not a DMN model).
	Model *Definitions
}

// DecisionService is a <decisionService>: a set of decisions evaluated as
// one function of its input data and input decisions (DMN 1.5 §6.3.11).
type DecisionService struct {
	ID, Name string
	// TypeRef is the typeRef of its <variable> ("" when untyped).
	TypeRef string
	// OutputDecisions are the decisions whose values the service returns:
	// the value of the only one, else a context of all by name.
	OutputDecisions []*Decision
	// EncapsulatedDecisions are evaluated inside the service.
	EncapsulatedDecisions []*Decision
	// InputDecisions and InputData are the service's parameters, input
	// data first, then input decisions: an input decision's value is the
	// argument, never evaluated.
	InputDecisions []*Decision
	InputData      []*InputData

	model *Definitions
	typ   *dmnType
}

// Parameters returns the service's parameter names: its input data, then
// its input decisions.
func (s *DecisionService) Parameters() []string {
	out := make([]string, 0, len(s.InputData)+len(s.InputDecisions))
	for _, in := range s.InputData {
		out = append(out, in.Name)
	}
	for _, d := range s.InputDecisions {
		out = append(out, d.Name)
	}
	return out
}

// Decision is a <decision>: a named value computed by its decision logic
// from its required decisions and input data, calling its required business
// knowledge models.
type Decision struct {
	// ID is the decision's id, the key it is evaluated and registered by.
	ID string
	// Name is the decision's name, also the FEEL variable its value is
	// known by in the decisions that require it.
	Name string
	// TypeRef is the typeRef of the decision's <variable> ("" when
	// untyped); the result is coerced to it.
	TypeRef string
	// RequiredDecisions, RequiredInputs and RequiredKnowledge are the
	// targets of the decision's information and knowledge requirements.
	RequiredDecisions []*Decision
	RequiredInputs    []*InputData
	RequiredKnowledge []*BKM
	// RequiredServices are the decision services among the knowledge
	// requirements: functions of their inputs, like business knowledge
	// models.
	RequiredServices []*DecisionService
	// Table is the decision table when the decision logic is one, nil
	// otherwise.
	Table *DecisionTable
	// Kind names the decision logic: "decisionTable", "literalExpression",
	// "context", "invocation", "list", "relation", "functionDefinition",
	// "conditional", "filter", "for", "some" or "every" ("" without
	// logic: the decision is null with an error).
	Kind string

	logic expression
	typ   *dmnType
	model *Definitions
}

// InputData is an <inputData>: a value supplied by the caller of Evaluate
// under the input data's name.
type InputData struct {
	ID, Name string
	// TypeRef is the typeRef of the input's <variable> ("" when untyped);
	// a supplied value is coerced to it.
	TypeRef string

	typ   *dmnType
	model *Definitions
}

// BKM is a <businessKnowledgeModel>: a function (its encapsulated logic)
// that decisions and other business knowledge models invoke by name.
type BKM struct {
	ID, Name string
	// Parameters are the formal parameters of the encapsulated logic.
	Parameters []Parameter
	// RequiredKnowledge are the business knowledge models it invokes.
	RequiredKnowledge []*BKM
	// RequiredServices are the decision services it invokes.
	RequiredServices []*DecisionService
	// Table is the body when it is a decision table, nil otherwise.
	Table *DecisionTable

	fn    *funcDef
	model *Definitions
}

// Parameter is a formal parameter of a business knowledge model or a
// function definition.
type Parameter struct {
	Name    string
	TypeRef string // "" when untyped

	typ *dmnType
}

// ItemDefinition is an <itemDefinition> (or an <itemComponent> inside one):
// a simple type (a base TypeRef, optionally restricted by AllowedValues), a
// structure (Components) and/or a collection of either.
type ItemDefinition struct {
	Name string
	// TypeRef is the base type ("" for a structure).
	TypeRef string
	// AllowedValues is the source of the allowed-values unary tests ("" when
	// unrestricted). A value that fails them does not conform and becomes null.
	AllowedValues string
	// TypeConstraint is the DMN 1.5 typeConstraint unary tests ("" when absent).
	TypeConstraint string
	// IsCollection marks a list of the described type.
	IsCollection bool
	// Components are the item components of a structure.
	Components []*ItemDefinition

	// FunctionOutput is the outputTypeRef of a functionItem ("" when
	// absent): the type of the function's result.
	FunctionOutput string

	base       *dmnType
	output     *dmnType // FunctionOutput resolved
	allowed    *feel.UnaryTests
	constraint *feel.UnaryTests
	resolving  bool // cycle detection during resolution
	resolved   bool
}

// HitPolicy is a decision table's hitPolicy attribute value.
type HitPolicy string

// The hit policies of DMN 1.5 §8.2.11.
const (
	HitUnique      HitPolicy = "UNIQUE"
	HitAny         HitPolicy = "ANY"
	HitPriority    HitPolicy = "PRIORITY"
	HitFirst       HitPolicy = "FIRST"
	HitRuleOrder   HitPolicy = "RULE ORDER"
	HitOutputOrder HitPolicy = "OUTPUT ORDER"
	HitCollect     HitPolicy = "COLLECT"
)

// Aggregation is the aggregation of a COLLECT decision table ("" for none).
type Aggregation string

// The aggregations of a COLLECT table: C+, C<, C> and C#.
const (
	AggregateNone  Aggregation = ""
	AggregateSum   Aggregation = "SUM"
	AggregateMin   Aggregation = "MIN"
	AggregateMax   Aggregation = "MAX"
	AggregateCount Aggregation = "COUNT"
)

// DecisionTable is a <decisionTable>.
type DecisionTable struct {
	// ID is the table's id ("" when it has none).
	ID string
	// HitPolicy defaults to HitUnique.
	HitPolicy   HitPolicy
	Aggregation Aggregation
	Inputs      []*TableInput
	Outputs     []*TableOutput
	Rules       []*TableRule

	owner string // id of the decision or BKM holding the table
}

// TableInput is an <input> clause of a decision table.
type TableInput struct {
	ID, Label string
	// Expression is the input expression's text.
	Expression string
	// TypeRef is the input expression's typeRef ("" when untyped).
	TypeRef string
	// InputValues is the source of the inputValues unary tests ("" when
	// absent): a value they reject is an evaluation error.
	InputValues string

	expr   *feel.Program
	bad    string // why expr did not compile
	typ    *dmnType
	values *feel.UnaryTests
}

// TableOutput is an <output> clause of a decision table.
type TableOutput struct {
	ID, Name, Label string
	// TypeRef is the output's typeRef ("" when untyped).
	TypeRef string
	// OutputValues is the source of the outputValues list ("" when
	// absent); its order is the priority order of PRIORITY and OUTPUT
	// ORDER tables.
	OutputValues string
	// Default is the defaultOutputEntry's text ("" when absent).
	Default string

	typ      *dmnType
	priority []*feel.UnaryTests // one per outputValues item, in order
	def      *feel.Program
}

// TableRule is a <rule> of a decision table.
type TableRule struct {
	ID string
	// Index is the rule's 1-based position in the table.
	Index int
	// InputEntries and OutputEntries are the entries' texts.
	InputEntries  []string
	OutputEntries []string

	tests   []*feel.UnaryTests // nil entry: "-" (matches anything)
	outputs []*feel.Program    // nil entry: empty output entry (null)
	bad     string             // why an input entry did not compile: the rule is an error
	outBad  []string           // why each output entry did not compile ("" when it did)
}
