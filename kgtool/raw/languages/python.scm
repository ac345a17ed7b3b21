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

; A decorator is a call of the decorator on the definition, made where the definition stands.
(decorator [(identifier) (attribute)] @call.function) @call

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
