; TypeScript (.ts .mts .cts) and TSX (.tsx), on top of ecmascript.scm (and jsx.scm for TSX):
; classes name a type_identifier, heritage splits into extends and implements, and declared
; types say what a receiver is. Capture names: see base.py.

; ---- definitions -------------------------------------------------------------------------

(class_declaration
  name: (type_identifier) @name
  (class_heritage
    (extends_clause value: (_) @base)?
    (implements_clause (_) @base)?)?) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name
  (class_heritage
    (extends_clause value: (_) @base)?
    (implements_clause (_) @base)?)?) @definition.class

(variable_declarator
  name: (identifier) @name
  value: (class
    (class_heritage
      (extends_clause value: (_) @base)?
      (implements_clause (_) @base)?)?)) @definition.class

(export_statement
  "default" @name
  value: (class
    (class_heritage
      (extends_clause value: (_) @base)?
      (implements_clause (_) @base)?)?) @definition.class)

(interface_declaration
  name: (type_identifier) @name
  (extends_type_clause (_) @base)?) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum

; Declared members are symbols too: a call through the base or interface type binds to them.
(class_body (abstract_method_signature name: (_) @name) @definition.function)
(interface_body (method_signature name: (_) @name) @definition.function)

(class_body
  (public_field_definition
    name: (_) @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)

; ---- receiver types: a constructor, a call's result, or a declared type ---------------------

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @assign.var
  value: (new_expression constructor: (_) @call.function)) @assign
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @assign.var
  value: (call_expression function: (_) @call.function)) @assign

; Declared types of variables, fields, interface properties and parameters (a constructor's
; parameter property is a field too: see assign_var).
(variable_declarator
  name: (identifier) @assign.var
  type: (type_annotation) @assign.type) @assign
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @assign.var
  type: (type_annotation) @assign.type) @assign
(property_signature
  name: (property_identifier) @assign.var
  type: (type_annotation) @assign.type) @assign
(required_parameter
  pattern: (identifier) @assign.var
  type: (type_annotation) @assign.type) @assign
(optional_parameter
  pattern: (identifier) @assign.var
  type: (type_annotation) @assign.type) @assign

; What an array declared as ``T[]`` holds: written ``items[]`` (``this.items[]`` for a field).
(variable_declarator
  name: (identifier) @assign.var
  type: (type_annotation (array_type . (_) @assign.type))) @assign @element
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @assign.var
  type: (type_annotation (array_type . (_) @assign.type))) @assign @element
(property_signature
  name: (property_identifier) @assign.var
  type: (type_annotation (array_type . (_) @assign.type))) @assign @element
(required_parameter
  pattern: (identifier) @assign.var
  type: (type_annotation (array_type . (_) @assign.type))) @assign @element
(optional_parameter
  pattern: (identifier) @assign.var
  type: (type_annotation (array_type . (_) @assign.type))) @assign @element

; A getter's declared type is its property's: ``get store(): Store`` types ``this.store``.
(method_definition
  "get"
  name: (property_identifier) @assign.var
  return_type: (type_annotation) @assign.type) @assign

; Declared return types.
(function_declaration return_type: (type_annotation) @assign.type) @assign @returns
(generator_function_declaration return_type: (type_annotation) @assign.type) @assign @returns
(function_expression return_type: (type_annotation) @assign.type) @assign @returns
(generator_function return_type: (type_annotation) @assign.type) @assign @returns
(arrow_function return_type: (type_annotation) @assign.type) @assign @returns
(method_definition return_type: (type_annotation) @assign.type) @assign @returns
(method_signature return_type: (type_annotation) @assign.type) @assign @returns
(abstract_method_signature return_type: (type_annotation) @assign.type) @assign @returns
(function_signature return_type: (type_annotation) @assign.type) @assign @returns
