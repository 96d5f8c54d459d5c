/* opcodes.h: the op table shared by the eager entry point and program
 * replay. One X-macro row per op: X(ENUM, "name", arity, min_attrs,
 * max_attrs); -1 as max_attrs means "any number". The order is the opcode
 * number and is part of the IR: ir/opcodes.go lists the same rows and
 * mlxbind's parity test proves they agree. Append, never reorder. */
#ifndef EMILY_OPCODES_H
#define EMILY_OPCODES_H

#define EMILY_OPCODES(X)                    \
  /* binary.cc: elementwise, broadcasting */ \
  X(ADD, "add", 2, 0, 0)                    \
  X(SUBTRACT, "subtract", 2, 0, 0)          \
  X(MULTIPLY, "multiply", 2, 0, 0)          \
  X(DIVIDE, "divide", 2, 0, 0)              \
  X(MAXIMUM, "maximum", 2, 0, 0)            \
  X(MINIMUM, "minimum", 2, 0, 0)            \
  X(POWER, "power", 2, 0, 0)                \
  /* unary.cc: elementwise */               \
  X(NEGATE, "negate", 1, 0, 0)              \
  X(EXP, "exp", 1, 0, 0)                    \
  X(LOG, "log", 1, 0, 0)                    \
  X(TANH, "tanh", 1, 0, 0)                  \
  X(SQRT, "sqrt", 1, 0, 0)                  \
  X(ABS, "abs", 1, 0, 0)                    \
  X(SIGMOID, "sigmoid", 1, 0, 0)            \
  /* reduce.cc: attrs = [keepdims, axes...]; no axes = all */ \
  X(SUM, "sum", 1, 1, -1)                   \
  X(MAX, "max", 1, 1, -1)                   \
  X(MIN, "min", 1, 1, -1)                   \
  X(MEAN, "mean", 1, 1, -1)                 \
  /* linalg.cc */                           \
  X(MATMUL, "matmul", 2, 0, 0)              \
  /* shape.cc: attrs = dims / permutation */ \
  X(RESHAPE, "reshape", 1, 0, -1)           \
  X(TRANSPOSE, "transpose", 1, 0, -1)       \
  X(BROADCAST_TO, "broadcast_to", 1, 0, -1) \
  /* cast.cc: attrs = [dtype code] */       \
  X(ASTYPE, "astype", 1, 1, 1)

enum emily_opcode {
#define EMILY_OPCODE_ENUM(e, name, arity, min_attrs, max_attrs) EMILY_OP_##e,
  EMILY_OPCODES(EMILY_OPCODE_ENUM)
#undef EMILY_OPCODE_ENUM
  EMILY_OPCODE_COUNT
};

#endif
