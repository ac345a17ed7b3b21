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
  right: (call function: [(identifier) (attribute)] @call.function)) @assign

; A decorator is a call of the decorator on the definition, made where the definition stands.
(decorator [(identifier) (attribute)] @call.function) @call
