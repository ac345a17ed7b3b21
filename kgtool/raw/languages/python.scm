; kgtool's layer-1 query for Python. Capture names: see base.py.

(class_definition
  name: (identifier) @name
  superclasses: (argument_list [(identifier) (attribute)] @base)?) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

(call
  function: (_) @call.function) @call

(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

(assignment
  left: [(identifier) (attribute)] @assign.var
  right: [
    (call function: [(identifier) (attribute)] @call.function)
    ; ``f = g``, ``self.store = store``: the name holds what the other one holds.
    [(identifier) (attribute)] @assign.value
  ]) @assign

; ``with open(p) as f``, ``with Store() as s``: the name holds what the call gives (what its
; ``__enter__`` returns: the object itself for most classes, a file for open()).
(with_item
  value: (as_pattern
    (call function: [(identifier) (attribute)] @call.function)
    alias: (as_pattern_target (identifier) @assign.var))) @assign @entered

; A decorator is a call of the decorator on the definition, made where the definition stands.
(decorator [(identifier) (attribute)] @call.function) @call
; ``@make(x)``: a call of what ``make(x)`` returns, on the definition (the callee is a call).
(decorator (call) @call.function) @call

; ``raise A``, ``raise mod.A``: a class raised by its name is constructed, so the statement
; calls it; the resolver keeps the site only when the name holds a class (see RAISED).
(raise_statement . [(identifier) (attribute)] @call.function) @call

; Stated types: parameters, annotated assignments (class-level ones too), return annotations.
(typed_parameter (identifier) @assign.var type: (type) @assign.type) @assign
(typed_default_parameter name: (identifier) @assign.var type: (type) @assign.type) @assign
(assignment
  left: [(identifier) (attribute)] @assign.var
  type: (type) @assign.type) @assign
(function_definition return_type: (type) @assign.type) @assign @returns
(return_statement (call function: [(identifier) (attribute)] @call.function)) @assign @returns

; Functions stored in a dict, list, tuple or set (``STAGES = {"a": fetch}``), called from there.
(assignment
  left: (identifier) @assign.var
  right: [
    (dictionary (pair value: [(identifier) (attribute)] @assign.value))
    (list [(identifier) (attribute)] @assign.value)
    (tuple [(identifier) (attribute)] @assign.value)
    (set [(identifier) (attribute)] @assign.value)
  ]) @assign @element

; Values held and passed, read by Python.value_facts: parameters, arguments that are names,
; decorators (``@d def f`` is ``f = d(f)``), ``functools.wraps``, loop variables, unpacking,
; stores under a key or index, returned names.
(function_definition parameters: (parameters) @value.parameters) @value
; An argument that is a name (anchored on the list: matching from the call costs twice as much).
(argument_list
  [(identifier) (attribute) (keyword_argument value: [(identifier) (attribute)])]
  @value.argument) @value
(decorated_definition
  (decorator [(identifier) (attribute)] @value.function)
  definition: [
    (function_definition name: (identifier) @value.var)
    (class_definition name: (identifier) @value.var)
  ]) @value
(decorated_definition
  (decorator
    (call
      function: [(identifier) (attribute)] @value.function
      arguments: (argument_list . (identifier) @value.argument)))
  definition: (function_definition name: (identifier) @value.var)) @value
(for_statement left: (identifier) @value.var right: (_) @value.iterable) @value
(assignment
  left: [(pattern_list) (tuple_pattern)] @value.var
  right: [(expression_list) (tuple)] @value.iterable) @value
(assignment
  left: (subscript value: (identifier) @value.var)
  right: [(identifier) (attribute)] @value.argument) @value
(call
  function: (attribute object: (identifier) @value.var attribute: (identifier) @value.method)
  arguments: (argument_list
    [(identifier) (attribute) (dictionary (pair value: [(identifier) (attribute)] @value.argument))]
    @value.argument)
  (#any-of? @value.method "append" "add" "update")) @value
(return_statement [(identifier) (attribute)] @value.argument) @value
