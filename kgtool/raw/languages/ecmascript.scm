; Patterns shared by JavaScript, TypeScript and TSX (their grammars agree on these nodes).
; Each language's query is this file plus its own: see `query_files` in javascript.py and
; typescript.py. Capture names: see base.py.

; ---- definitions -------------------------------------------------------------------------

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function

; export default function () {...}: an anonymous default export is the symbol "default".
(export_statement
  "default" @name
  value: [(function_expression) (arrow_function) (generator_function)] @definition.function)

; const f = () => ...; const g = function () {...}
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; exports.f = function () {...} / module.exports.f = () => ...
(assignment_expression
  left: (member_expression
    object: (_) @_exports
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (generator_function)]
  (#match? @_exports "^(module\\.)?exports$")) @definition.function

; Methods only in class bodies: methods of object literals are not symbols.
(class_body (method_definition name: (_) @name) @definition.function)

; A top-level binding of a wrapped function is that function: React.memo((props) => ...),
; forwardRef(function (props, ref) {...}), memo(forwardRef(...)); not [1, 2].map(...): which
; calls wrap one, wraps_function says (nested here, the call's shape tripled the query's cost).
(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: (call_expression) @wrapped) @definition.function))
(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: (call_expression) @wrapped) @definition.function)))

; ---- calls -------------------------------------------------------------------------------

; require() and import() load modules: imports_by_call makes them imports, not calls (as
; patterns of their own, they cost a tenth of the query's compile time).
(call_expression function: (_) @call.function) @call

(new_expression constructor: (_) @call.function) @new

; A decorator's calls are made where the decorated definition stands (see base.Decorators).
(decorator) @decorator

; ---- imports -----------------------------------------------------------------------------

(import_statement) @import
(export_statement) @import

; ---- receiver types: a constructor, a call's result, another name -------------------------

; const store = new Store(), openStore() or await openLog(); this.log = ... : what the call
; returns (callee_of reads the callee: require() and import() are imports).
(variable_declarator
  name: (identifier) @assign.var
  value: [(call_expression) (new_expression) (await_expression)] @assign.call) @assign
(assignment_expression
  left: [(identifier) (member_expression)] @assign.var
  right: [(call_expression) (new_expression) (await_expression)] @assign.call) @assign

; const store = this.store; this.store = store: the name holds what the other one holds.
(variable_declarator
  name: (identifier) @assign.var
  value: [(identifier) (member_expression)] @assign.value) @assign
(assignment_expression
  left: [(identifier) (member_expression)] @assign.var
  right: [(identifier) (member_expression)] @assign.value) @assign

; for (const item of items): one of what items holds (see the element types in typescript.scm).
(for_in_statement
  left: (identifier) @assign.var
  "of"
  right: [(identifier) (member_expression)] @assign.element) @assign

; What a function returns: a constructed class, another call's result, a name's value. Only
; from the function itself: a return inside a callback is the callback's (see returns_from).
(return_statement [(call_expression) (new_expression) (await_expression)] @assign.call) @assign @returns
(return_statement [(identifier) (member_expression)] @assign.value) @assign @returns
(arrow_function body: [(call_expression) (new_expression)] @assign.call) @assign @returns

; ---- parameters ---------------------------------------------------------------------------

; A parameter called by its name is a call through a value (``done()`` of ``run(done)``), never
; a same-named function bound by its name alone: value_facts keeps the parameters called.
(formal_parameters) @value.parameters @value
; const ops = { create, remove: removeNode }: ops.create() calls create (see value_facts).
(variable_declarator name: (identifier) @value.holder value: (object) @value.object) @value
; return { create, remove }: the function's result holds those functions as its members.
(return_statement (object) @value.object) @value
; const { a, b: c } = make(), await make() or a value: each name holds that member of it.
(variable_declarator name: (object_pattern) @value.pattern value: (_) @value.source) @value
(arrow_function parameter: (identifier) @value.parameters) @value
