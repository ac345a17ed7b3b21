; kgtool's layer-1 query for Go. Capture names: see base.py.

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct

; An embedded field promotes the methods of its type: an ``inherits`` edge.
(type_spec
  name: (type_identifier) @name
  type: (struct_type
    (field_declaration_list
      (field_declaration
        !name
        type: [(type_identifier) (qualified_type) (generic_type)] @base)))) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name
  type: (interface_type
    (type_elem . [(type_identifier) (qualified_type)] @base .))) @definition.interface

(method_elem
  name: (field_identifier) @name) @definition.function

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: (_) @owner))
  name: (field_identifier) @name) @definition.function

(call_expression
  function: (_) @call.function) @call

(composite_literal
  type: [(type_identifier) (qualified_type) (generic_type)] @call.function) @new

(import_declaration) @import

;
; What a variable holds, when the syntax says (kind ASSIGNED or STATED, see base.py):
; ``x := &T{}``, ``x := NewT()``, ``x := y.f``, ``var x T``, ``var x = NewT()``, ``x, ok := v.(*T)``,
; parameters, struct fields, and what a function returns (its first result).
(short_var_declaration
  left: (expression_list . (identifier) @assign.var)
  right: (expression_list .
    [(composite_literal type: (_) @call.function)
     (unary_expression operand: (composite_literal type: (_) @call.function))
     (call_expression function: (_) @call.function)])) @assign

(short_var_declaration
  left: (expression_list . (identifier) @assign.var)
  right: (expression_list . [(identifier) (selector_expression)] @assign.value .)) @assign

(short_var_declaration
  left: (expression_list . (identifier) @assign.var)
  right: (expression_list . (type_assertion_expression type: (_) @assign.type))) @assign

(var_spec
  name: (identifier) @assign.var
  type: (_) @assign.type) @assign

(var_spec
  name: (identifier) @assign.var
  !type
  value: (expression_list .
    [(composite_literal type: (_) @call.function)
     (unary_expression operand: (composite_literal type: (_) @call.function))
     (call_expression function: (_) @call.function)])) @assign

(parameter_declaration
  name: (identifier) @assign.var
  type: (_) @assign.type) @assign

; A struct field's declared type: ``s.repo.Put()`` in a method of that struct binds through it.
(field_declaration
  name: (field_identifier) @assign.var
  type: (_) @assign.type) @assign

(function_declaration result: (_) @assign.type) @assign @returns
(method_declaration result: (_) @assign.type) @assign @returns

; An anonymous interface (``interface{}``, ``interface{ Save() }``) names no type: a method
; called on a value stated to be one is dynamic, never bound by its name alone.
(parameter_declaration
  name: (identifier) @assign.var
  type: (interface_type) @assign.dynamic) @assign

(var_spec
  name: (identifier) @assign.var
  type: (interface_type) @assign.dynamic) @assign

(short_var_declaration
  left: (expression_list . (identifier) @assign.var)
  right: (expression_list . (type_assertion_expression type: (interface_type) @assign.dynamic))) @assign
