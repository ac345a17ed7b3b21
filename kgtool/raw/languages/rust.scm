; kgtool's layer-1 query for Rust. Capture names: see base.py.
; Inline ``mod x { ... }`` blocks are not scopes: their functions count as the file's own.

(struct_item
  name: (type_identifier) @name) @definition.struct

(union_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(trait_item
  name: (type_identifier) @name) @definition.trait

; Supertraits: ``trait Tr: Base``.
(trait_item
  name: (type_identifier) @name
  bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @base)) @definition.trait

(function_item
  name: (identifier) @name) @definition.function

(function_signature_item
  name: (identifier) @name) @definition.function

; ``impl T`` names the methods inside it ``T.m``; ``impl Trait for T`` also makes T a Trait.
(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
  ]) @scope

(impl_item
  trait: [(type_identifier) (scoped_type_identifier) (generic_type)] @base
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
  ]) @scope

(call_expression
  function: (_) @call.function) @call

(struct_expression
  name: (_) @call.function) @new

(use_declaration) @import
(extern_crate_declaration) @import
(mod_item
  name: (identifier)
  !body) @import

; What a variable holds: its declared type, the struct it is built from, or ``T::new()``.
(let_declaration
  pattern: (identifier) @assign.var
  type: (_) @call.function) @assign

(let_declaration
  pattern: (identifier) @assign.var
  value: (struct_expression name: (_) @call.function)) @assign

(let_declaration
  pattern: (identifier) @assign.var
  value: (call_expression
    function: (scoped_identifier
      path: (_) @call.function
      name: (identifier) @_constructor)
    (#any-of? @_constructor "new" "default"))) @assign

(parameter
  pattern: (identifier) @assign.var
  type: (_) @call.function) @assign
