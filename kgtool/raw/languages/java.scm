; kgtool's layer-1 query for Java. Capture names: see base.py.
; A constructor is an initialiser, not a symbol: the calls in it belong to its class, and
; ``new App()`` calls the class. (As a method ``App.App`` it would shadow the class's own name.)

(class_declaration
  name: (identifier) @name) @definition.class

(class_declaration
  name: (identifier) @name
  superclass: (superclass (_) @base)) @definition.class

(class_declaration
  name: (identifier) @name
  interfaces: (super_interfaces (type_list (_) @base))) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name
  interfaces: (super_interfaces (type_list (_) @base))) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(interface_declaration
  name: (identifier) @name
  (extends_interfaces (type_list (_) @base))) @definition.interface

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(enum_declaration
  name: (identifier) @name
  interfaces: (super_interfaces (type_list (_) @base))) @definition.enum

(method_declaration
  name: (identifier) @name) @definition.function

(method_invocation) @call @call.function

; super(...) and this(...) in a constructor construct the base class, or the class itself.
(explicit_constructor_invocation) @new @call.function

(object_creation_expression
  type: (_) @call.function) @new

(import_declaration) @import

; What a variable holds, when the syntax says (kind ASSIGNED or STATED, see base.py): its
; declared type (locals, fields, parameters, loop variables, resources, patterns), or, declared
; ``var``, the class it is created from or the method whose result it is; and what a method
; returns. Generic types are read as their raw class (``List<Store>`` is a List).
(local_variable_declaration
  type: (_) @assign.type
  declarator: (variable_declarator name: (identifier) @assign.var)
  (#not-eq? @assign.type "var")) @assign

(local_variable_declaration
  type: (type_identifier) @_var
  declarator: (variable_declarator
    name: (identifier) @assign.var
    value: [(object_creation_expression type: (_) @call.function)
            (method_invocation) @call.function])
  (#eq? @_var "var")) @assign

(field_declaration
  type: (_) @assign.type
  declarator: (variable_declarator name: (identifier) @assign.var)) @assign

(formal_parameter
  type: (_) @assign.type
  name: (identifier) @assign.var) @assign

(enhanced_for_statement
  type: (_) @assign.type
  name: (identifier) @assign.var
  (#not-eq? @assign.type "var")) @assign

(resource
  type: (_) @assign.type
  name: (identifier) @assign.var
  (#not-eq? @assign.type "var")) @assign

(instanceof_expression
  right: (_) @assign.type
  name: (identifier) @assign.var) @assign

(method_declaration type: (_) @assign.type) @assign @returns

; A lambda's parameters with no type written: what they are is inferred by the compiler from
; the interface the lambda implements, which is not followed; a call on one is never bound
; by the method's name alone.
(lambda_expression parameters: (identifier) @assign.var @assign.dynamic) @assign
(lambda_expression
  parameters: (inferred_parameters (identifier) @assign.var @assign.dynamic)) @assign
