# A fused elementwise evaluator whose program is data (numexpr's virtual-machine idea:
# D. Cooke, F. Alted et al., numexpr, 2006-). One compiled kernel serves every elementwise
# expression, so a structure seen for the first time runs fused, in cache-sized blocks, SIMD, on
# all cores, without compiling anything. Nabla's program kernel (../nabla_vm.mojo) runs one such
# program per stage of a trace: ``map_into``, and ``reduce_into`` and ``scan_into``
# of fused_reduce.mojo.
#
# Program (int32): [n_instructions, result_register, reduction, r, inner, output code, then 5 ints
# per instruction: opcode, destination, a, b, c]. Registers hold one block of values each; booleans
# are 1 / 0. Load: a = input slot, b = 0 (in order, or one value for all) or 1 + where its strided
# layout starts in the constants (NumPy's view model: slices, transposes and broadcasts of an
# input), c = the slot's dtype code (integer family). Data slots are (address, size) pairs of a
# table (``slot``, fused_slots.mojo). Opcodes are each op's own (its ``Fused(code)`` in its row of
# nabla/ops/elementwise.py), named here by the constants of opcodes.mojo (``Op.EXP``), which
# nabla/runtime/fused_codes.py writes from the rows; nabla/runtime/fused_program.py writes programs.
#
# Three families, picked by the data's dtype S and the registers' dtype R (parameters of each
# instantiation): float (S = R, one float dtype); integer (R int64, data slots and output bytes read and
# written through dtype codes: 0 bool, 1 int8, 2 int16, 3 int32, 4 int64, 5 uint8, 6 uint16,
# 7 uint32); coded float (R float32 or float64, bytes through the codes above and 8 float32,
# 9 float64, 10 float16: a comparison's bool result, casts between dtypes, an integer input of a
# float expression, float16 work). Integer results narrower than 64 bits are wrapped to their dtype
# after each op (``Op.WRAP``), as NumPy's integer arithmetic wraps, so comparisons and maxima see
# wrapped values; sums and products wrap at the store (arithmetic modulo 2^k agrees). float16
# work runs in float32 registers rounded to float16 after each op (``Op.WRAP`` to ``Code.FLOAT16``),
# as NumPy's float16 loops compute in float32 and round each result.
#
# This file runs a program over one block (``_run_block``: each instruction one SIMD loop compiled
# for its opcode) and a stage's map (``map_into``). The ops themselves: the float family's in
# fused_unary.mojo and fused_binary.mojo (accurate exponentials and logarithms in
# fused_exp_log.mojo, exact floor division and remainder in fused_division.mojo, NaN and infinity
# read from bits in fused_bits.mojo), the integer family's in fused_int.mojo; loads, gathers and
# strided stores of data slots in fused_slots.mojo; reductions' accumulators in
# fused_accumulate.mojo.
from std.memory import bitcast
from std.sys.info import simd_width_of, size_of
from max.algorithm import parallelize
from .denormals import KeepDenormals
from .fused_binary import _binary
from .fused_unary import _unary
from .fused_int import _binary_bytes, _binary_int, _code_of, _unary_bytes, _unary_int, _wrap, store_coded
from .fused_slots import _fill, _fill_strided, _gather, _load_coded, slot, store_strided
from .opcodes import Op, Code

comptime BLOCK = 1024
comptime MAX_REGISTERS = 24
comptime HEADER = 8
comptime WIDTH_OF_INSTRUCTION = 5
comptime BLOCKS_PER_TASK = 16
# Stages of less work run their tasks on the calling thread, one after another: ``parallelize``
# costs more than that much work. A stage's work is its elements times its instructions, a
# transcendental one (exp, log, the trigonometric functions, pow) weighing ``COSTLY``. Measured on
# the 2-core machine (kernel time, serial / parallel): x * 2 + 1 over 65,536 float64 0.044 / 0.31
# ms, over 262,144 0.15 / 0.14, over 4M 4.8 / 3.1; exp over 262,144 0.33 / 0.24; a sum over 1M
# 0.43 / 0.33; a matmul of (2, 2) by (2, 16384), stockham_fft's, 0.02 / 0.28. ``parallelize``
# wakes MAX's workers, which sleep between a loop's reads: up to ~0.3 ms, so a cheap reduction
# runs serial up to ``SERIAL_WORK`` as a map does (a count of 400,000 booleans in a loop between
# reads: 0.04 ms serial, 0.04-0.46 ms parallel; azimint_naive at S 1.12 -> 0.83 s). A sum of
# products (a dot: its tasks each stream rows of their own) is parallel from ``SERIAL_DOT_WORK``
# (covariance2 at M lost a fifth under ``SERIAL_WORK``). The values are the same either way, tasks
# and partials alike.
comptime SERIAL_WORK = 4096 * BLOCK
comptime SERIAL_DOT_WORK = 256 * BLOCK
comptime COSTLY = 16


def program_work(p: UnsafePointer[Int32, _], n: Int) -> Int:
    """The work of program ``p`` over ``n`` elements, as ``SERIAL_WORK`` counts it."""
    var weight = 0
    for pc in range(Int(p.unsafe_load(0))):
        var op = Int(p.unsafe_load(HEADER + pc * WIDTH_OF_INSTRUCTION))
        var costly = (op >= Op.EXP and op <= Op.LOG1P) or (op >= Op.SIN and op <= Op.TANH) \
            or (op >= Op.TAN and op <= Op.COSH) or (op >= Op.POW and op <= Op.LOGADDEXP) \
            or (op >= Op.MORE_UNARY_FIRST and op < Op.MORE_UNARY_END)
        weight += COSTLY if costly else 1
    return n * max(weight, 1)


@always_inline
def registers_used(p: UnsafePointer[Int32, _]) -> Int:
    """How many registers program ``p`` writes (its instructions' destinations, its result's): a
    task allocates only those. (All ``MAX_REGISTERS`` registers of a block are 192 KiB of float64,
    past the allocator's mapping threshold: a stage of many tasks paid fresh zeroed pages for each.)"""
    var n = Int(p.unsafe_load(1)) + 1
    for pc in range(Int(p.unsafe_load(0))):
        n = max(n, Int(p.unsafe_load(HEADER + pc * WIDTH_OF_INSTRUCTION + 1)) + 1)
    return min(n, MAX_REGISTERS)


def constant_registers(p: UnsafePointer[Int32, _]) -> Int:
    """The registers (a bit each) that program ``p`` writes once, by a constant: a task fills each at
    its first block, and its later blocks read it as it is (a constant filled per block was one
    more pass over a block's memory than a scaled input, ``x * 2.0``, needs)."""
    var writes = 0
    var again = 0
    var consts = 0
    for pc in range(Int(p.unsafe_load(0))):
        var at = HEADER + pc * WIDTH_OF_INSTRUCTION
        var bit = 1 << Int(p.unsafe_load(at + 1))
        again |= writes & bit
        writes |= bit
        if Int(p.unsafe_load(at)) == Op.CONST:
            consts |= bit
    return consts & ~again


def register_stride[T: DType](n: Int) -> Int:
    """How many values each register holds for a program over ``n`` elements: a block, or all of
    them rounded up to whole vectors (a small trace's registers then fit in a few cache lines,
    where a block's would be a fresh 192 KiB allocation per run)."""
    comptime w = simd_width_of[T]()
    return min(BLOCK, (n + w - 1) // w * w)


@always_inline
def _map_unary[T: DType, op: Int](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                  src: UnsafePointer[Scalar[T], MutUntrackedOrigin], padded: Int):
    comptime w = simd_width_of[T]()
    for i in range(0, padded, w):
        comptime if T.is_floating_point():
            dst.unsafe_store(i, _unary[T, w](op, src.unsafe_load[width=w](i)))
        elif T == DType.uint8:  # (the byte family: bools in registers of their own width)
            dst.unsafe_store(i, _unary_bytes[w](op, src.unsafe_load[width=w](i).cast[DType.uint8]()).cast[T]())
        else:
            dst.unsafe_store(i, _unary_int[w](op, src.unsafe_load[width=w](i).cast[DType.int64]()).cast[T]())


@always_inline
def _map_binary[T: DType, op: Int](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                   p: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                   q: UnsafePointer[Scalar[T], MutUntrackedOrigin], padded: Int):
    comptime w = simd_width_of[T]()
    for i in range(0, padded, w):
        comptime if T.is_floating_point():
            dst.unsafe_store(i, _binary[T, w](op, p.unsafe_load[width=w](i), q.unsafe_load[width=w](i)))
        elif T == DType.uint8:  # (the byte family)
            var x = p.unsafe_load[width=w](i).cast[DType.uint8]()
            dst.unsafe_store(i, _binary_bytes[w](op, x, q.unsafe_load[width=w](i).cast[DType.uint8]()).cast[T]())
        else:
            var x = p.unsafe_load[width=w](i).cast[DType.int64]()
            dst.unsafe_store(i, _binary_int[w](op, x, q.unsafe_load[width=w](i).cast[DType.int64]()).cast[T]())


@always_inline
def _map_binary_bytes[T: DType, op: Int](dst: UnsafePointer[UInt8, MutAnyOrigin],
                                        p: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                        q: UnsafePointer[Scalar[T], MutUntrackedOrigin], count: Int):
    comptime w = simd_width_of[T]()
    var whole = count // w * w
    for i in range(0, whole, w):
        dst.unsafe_store(i, _binary[T, w](op, p.unsafe_load[width=w](i), q.unsafe_load[width=w](i)).cast[DType.uint8]())
    for i in range(whole, count):
        dst.unsafe_store(i, _binary[T, 1](op, p.unsafe_load(i), q.unsafe_load(i)).cast[DType.uint8]())


@always_inline
def _stores_bytes(op: Int) -> Bool:
    """Whether ``_binary_into_bytes`` takes ``op``: a comparison, ``logical_and`` or ``logical_or``."""
    return op == Op.LESS or op == Op.LESS_EQUAL or op == Op.GREATER or op == Op.GREATER_EQUAL \
        or op == Op.EQUAL or op == Op.NOT_EQUAL or op == Op.LOGICAL_AND or op == Op.LOGICAL_OR


def _binary_into_bytes[T: DType](op: Int, dst: UnsafePointer[UInt8, MutAnyOrigin],
                                 p: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                 q: UnsafePointer[Scalar[T], MutUntrackedOrigin], count: Int):
    """A float map's last op (one ``_stores_bytes`` takes), whose bool values are its result: each
    1 / 0 stored as a byte as it is computed, where the register was written and read again to be
    stored (``r < c``)."""
    if op == Op.LESS:
        _map_binary_bytes[T, Op.LESS](dst, p, q, count)
    elif op == Op.LESS_EQUAL:
        _map_binary_bytes[T, Op.LESS_EQUAL](dst, p, q, count)
    elif op == Op.GREATER:
        _map_binary_bytes[T, Op.GREATER](dst, p, q, count)
    elif op == Op.GREATER_EQUAL:
        _map_binary_bytes[T, Op.GREATER_EQUAL](dst, p, q, count)
    elif op == Op.EQUAL:
        _map_binary_bytes[T, Op.EQUAL](dst, p, q, count)
    elif op == Op.NOT_EQUAL:
        _map_binary_bytes[T, Op.NOT_EQUAL](dst, p, q, count)
    elif op == Op.LOGICAL_AND:
        _map_binary_bytes[T, Op.LOGICAL_AND](dst, p, q, count)
    else:
        _map_binary_bytes[T, Op.LOGICAL_OR](dst, p, q, count)


@always_inline
def register_of[T: DType, S: DType](ptrs: UnsafePointer[Int, MutUntrackedOrigin],
                                    regs: UnsafePointer[Scalar[T], MutUntrackedOrigin], stride: Int,
                                    k: Int) -> UnsafePointer[Scalar[T], MutUntrackedOrigin]:
    """Register ``k`` of a block ``_run_block`` ran: its address in the block's table where a load
    may be in place (data of the registers' dtype), else its own memory at ``regs + k * stride``
    (the coded families keep no table: writing it per instruction cost their maps a fifth)."""
    comptime if S == T:
        return UnsafePointer[Scalar[T], MutUntrackedOrigin](unsafe_from_address=ptrs.unsafe_load(k))
    else:
        return regs + k * stride


def _run_block[T: DType, S: DType](
    prog: UnsafePointer[Int32, _], consts: UnsafePointer[Float64, _], data: UnsafePointer[Int, _],
    regs: UnsafePointer[Scalar[T], MutUntrackedOrigin], stride: Int, start: Int, count: Int,
    ptrs: UnsafePointer[Int, MutUntrackedOrigin], keep: Int, direct: Int = 0, result: Int = -1,
    filled: Int = 0, bytes_at: Int = 0,
):
    """One block of the program's values, register k where ``register_of`` finds it: T the
    registers' dtype, S the data slots' (T itself, or bytes for the integer family, read through
    each load's dtype code). ``data``: (address, size in elements of S) per data slot. An op's
    register is its memory at ``regs + k * stride``; a load in order of a slot of the registers'
    dtype, over whole vectors, is the slot's own memory at the block (no copy: a simple expression's
    loads were half its passes over memory), but for register ``keep``, which its caller writes.
    ``direct``: where the last instruction stores its values, when it computes register ``result``
    (the output's memory at the block, which no data slot overlaps: no store pass after it).
    ``filled``: the constant registers (``constant_registers``) that hold their values already."""
    comptime w = simd_width_of[T]()
    var n_instr = Int(prog.unsafe_load(0))
    var padded = (count + w - 1) // w * w
    comptime if S == T:
        for k in range(MAX_REGISTERS):
            ptrs.unsafe_store(k, Int(regs + k * stride))
    for pc in range(n_instr):
        var at = HEADER + pc * WIDTH_OF_INSTRUCTION
        var op = Int(prog.unsafe_load(at))
        var d = Int(prog.unsafe_load(at + 1))
        var dst = regs + d * stride
        if direct != 0 and d == result and pc == n_instr - 1 and op != Op.LOAD and op != Op.CONST:
            dst = UnsafePointer[Scalar[T], MutUntrackedOrigin](unsafe_from_address=direct)
        var held = Int(dst)  # (where register d is once this instruction is done)
        var a = Int(prog.unsafe_load(at + 2))
        var b = Int(prog.unsafe_load(at + 3))
        var c = Int(prog.unsafe_load(at + 4))
        if op == Op.LOAD:  # load input slot a, in order (b == 0) or through the layout at consts[b - 1]
            var src = slot[S](data, a)
            var size = data.unsafe_load(2 * a + 1)
            comptime if S == T:
                if b > 0:
                    _fill_strided[S, T](dst, src, start, count, consts + (b - 1))
                elif size != 1 and padded == count and d != keep:
                    held = Int(src + start)
                else:
                    _fill[S, T](dst, src, size, start, count)
            else:
                _load_coded[T](c, dst, src.unsafe_bitcast[UInt8](), size, start, count, consts + (b - 1), b > 0)
        elif op == Op.CONST:  # constant a (the integer family's: its int64 bits)
            if (filled >> d) & 1:
                ptrs.unsafe_store(d, held)
                continue
            var v: SIMD[T, w]
            comptime if T.is_floating_point():
                v = SIMD[T, w](consts.unsafe_load(a).cast[T]())
            else:
                v = SIMD[T, w](bitcast[DType.int64, 1](consts.unsafe_load(a)).cast[T]())
            for i in range(0, padded, w):
                dst.unsafe_store(i, v)
        elif op < Op.UNARY_END:  # the opcode picks a loop compiled for it: no dispatch per element
            var src = register_of[T, S](ptrs, regs, stride, a)
            if op == Op.NEGATIVE:
                _map_unary[T, Op.NEGATIVE](dst, src, padded)
            elif op == Op.ABS:
                _map_unary[T, Op.ABS](dst, src, padded)
            elif op == Op.SQUARE:
                _map_unary[T, Op.SQUARE](dst, src, padded)
            elif op == Op.RECIPROCAL:
                _map_unary[T, Op.RECIPROCAL](dst, src, padded)
            elif op == Op.EXP:
                _map_unary[T, Op.EXP](dst, src, padded)
            elif op == Op.EXPM1:
                _map_unary[T, Op.EXPM1](dst, src, padded)
            elif op == Op.LOG:
                _map_unary[T, Op.LOG](dst, src, padded)
            elif op == Op.LOG1P:
                _map_unary[T, Op.LOG1P](dst, src, padded)
            elif op == Op.SQRT:
                _map_unary[T, Op.SQRT](dst, src, padded)
            elif op == Op.SIN:
                _map_unary[T, Op.SIN](dst, src, padded)
            elif op == Op.COS:
                _map_unary[T, Op.COS](dst, src, padded)
            elif op == Op.TANH:
                _map_unary[T, Op.TANH](dst, src, padded)
            elif op == Op.FLOOR:
                _map_unary[T, Op.FLOOR](dst, src, padded)
            elif op == Op.CEIL:
                _map_unary[T, Op.CEIL](dst, src, padded)
            elif op == Op.TRUNC:
                _map_unary[T, Op.TRUNC](dst, src, padded)
            elif op == Op.SIGN:
                _map_unary[T, Op.SIGN](dst, src, padded)
            elif op == Op.ISNAN:
                _map_unary[T, Op.ISNAN](dst, src, padded)
            elif op == Op.ISINF:
                _map_unary[T, Op.ISINF](dst, src, padded)
            elif op == Op.ISFINITE:
                _map_unary[T, Op.ISFINITE](dst, src, padded)
            elif op == Op.LOGICAL_NOT:
                _map_unary[T, Op.LOGICAL_NOT](dst, src, padded)
            elif op == Op.POSITIVE:
                _map_unary[T, Op.POSITIVE](dst, src, padded)
            elif op == Op.BITWISE_INVERT:
                _map_unary[T, Op.BITWISE_INVERT](dst, src, padded)
            elif op == Op.SIGNBIT:
                _map_unary[T, Op.SIGNBIT](dst, src, padded)
            elif op == Op.ROUND:
                _map_unary[T, Op.ROUND](dst, src, padded)
            elif op == Op.TAN:
                _map_unary[T, Op.TAN](dst, src, padded)
            elif op == Op.ASIN:
                _map_unary[T, Op.ASIN](dst, src, padded)
            elif op == Op.ACOS:
                _map_unary[T, Op.ACOS](dst, src, padded)
            elif op == Op.ATAN:
                _map_unary[T, Op.ATAN](dst, src, padded)
            elif op == Op.SINH:
                _map_unary[T, Op.SINH](dst, src, padded)
            elif op == Op.COSH:
                _map_unary[T, Op.COSH](dst, src, padded)
        elif op < Op.BINARY_END:
            var p = register_of[T, S](ptrs, regs, stride, a)
            var q = register_of[T, S](ptrs, regs, stride, b)
            comptime if T.is_floating_point():
                if bytes_at != 0 and pc == n_instr - 1:  # (a bool map's last op: its bytes stored as computed)
                    _binary_into_bytes[T](op, UnsafePointer[UInt8, MutAnyOrigin](unsafe_from_address=bytes_at), p, q,
                                          count)
                    continue
            if op == Op.ADD:
                _map_binary[T, Op.ADD](dst, p, q, padded)
            elif op == Op.SUBTRACT:
                _map_binary[T, Op.SUBTRACT](dst, p, q, padded)
            elif op == Op.MULTIPLY:
                _map_binary[T, Op.MULTIPLY](dst, p, q, padded)
            elif op == Op.DIVIDE:
                _map_binary[T, Op.DIVIDE](dst, p, q, padded)
            elif op == Op.MAXIMUM:
                _map_binary[T, Op.MAXIMUM](dst, p, q, padded)
            elif op == Op.MINIMUM:
                _map_binary[T, Op.MINIMUM](dst, p, q, padded)
            elif op == Op.EQUAL:
                _map_binary[T, Op.EQUAL](dst, p, q, padded)
            elif op == Op.NOT_EQUAL:
                _map_binary[T, Op.NOT_EQUAL](dst, p, q, padded)
            elif op == Op.GREATER:
                _map_binary[T, Op.GREATER](dst, p, q, padded)
            elif op == Op.GREATER_EQUAL:
                _map_binary[T, Op.GREATER_EQUAL](dst, p, q, padded)
            elif op == Op.LESS:
                _map_binary[T, Op.LESS](dst, p, q, padded)
            elif op == Op.LESS_EQUAL:
                _map_binary[T, Op.LESS_EQUAL](dst, p, q, padded)
            elif op == Op.LOGICAL_AND:
                _map_binary[T, Op.LOGICAL_AND](dst, p, q, padded)
            elif op == Op.LOGICAL_OR:
                _map_binary[T, Op.LOGICAL_OR](dst, p, q, padded)
            elif op == Op.LOGICAL_XOR:
                _map_binary[T, Op.LOGICAL_XOR](dst, p, q, padded)
            elif op == Op.BITWISE_AND:
                _map_binary[T, Op.BITWISE_AND](dst, p, q, padded)
            elif op == Op.BITWISE_OR:
                _map_binary[T, Op.BITWISE_OR](dst, p, q, padded)
            elif op == Op.BITWISE_XOR:
                _map_binary[T, Op.BITWISE_XOR](dst, p, q, padded)
            elif op == Op.FLOOR_DIVIDE:
                _map_binary[T, Op.FLOOR_DIVIDE](dst, p, q, padded)
            elif op == Op.REMAINDER:
                _map_binary[T, Op.REMAINDER](dst, p, q, padded)
        elif op == Op.POW:  # power
            _map_binary[T, Op.POW](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
        elif op == Op.ATAN2:  # atan2 (the float family's only)
            comptime if T.is_floating_point():
                _map_binary[T, Op.ATAN2](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
        elif op == Op.HYPOT:  # hypot (the float family's only)
            comptime if T.is_floating_point():
                _map_binary[T, Op.HYPOT](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
        elif op == Op.LOGADDEXP:  # logaddexp (the float family's only)
            comptime if T.is_floating_point():
                _map_binary[T, Op.LOGADDEXP](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
        elif op == Op.COPYSIGN:  # copysign (the float family's only)
            comptime if T.is_floating_point():
                _map_binary[T, Op.COPYSIGN](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
        elif op == Op.NEXTAFTER:  # nextafter (the float family's only)
            comptime if T.is_floating_point():
                _map_binary[T, Op.NEXTAFTER](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
        elif op >= Op.HALF_BINARY_FIRST and op < Op.HALF_BINARY_END:  # the float family's forms on float16 data
            comptime if T.is_floating_point():
                if op == Op.H_NEXTAFTER:
                    _map_binary[T, Op.H_NEXTAFTER](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
        elif op >= Op.UNSIGNED_UNARY_FIRST and op < Op.UNSIGNED_BINARY_END:  # the integer family's forms for uint64 operands
            comptime if not T.is_floating_point():
                if op == Op.U_SIGN:
                    _map_unary[T, Op.U_SIGN](dst, register_of[T, S](ptrs, regs, stride, a), padded)
                elif op == Op.U_MAXIMUM:
                    _map_binary[T, Op.U_MAXIMUM](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
                elif op == Op.U_MINIMUM:
                    _map_binary[T, Op.U_MINIMUM](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
                elif op == Op.U_GREATER:
                    _map_binary[T, Op.U_GREATER](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
                elif op == Op.U_GREATER_EQUAL:
                    _map_binary[T, Op.U_GREATER_EQUAL](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
                elif op == Op.U_LESS:
                    _map_binary[T, Op.U_LESS](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
                elif op == Op.U_LESS_EQUAL:
                    _map_binary[T, Op.U_LESS_EQUAL](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
                elif op == Op.U_FLOOR_DIVIDE:
                    _map_binary[T, Op.U_FLOOR_DIVIDE](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
                elif op == Op.U_REMAINDER:
                    _map_binary[T, Op.U_REMAINDER](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
                elif op == Op.U_BITWISE_RIGHT_SHIFT:
                    _map_binary[T, Op.U_BITWISE_RIGHT_SHIFT](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
                elif op == Op.U_POW:
                    _map_binary[T, Op.U_POW](dst, register_of[T, S](ptrs, regs, stride, a), register_of[T, S](ptrs, regs, stride, b), padded)
        elif op >= Op.MORE_UNARY_FIRST and op < Op.MORE_UNARY_END:  # more of the float family's unary functions
            comptime if T.is_floating_point():
                var src = register_of[T, S](ptrs, regs, stride, a)
                if op == Op.ASINH:
                    _map_unary[T, Op.ASINH](dst, src, padded)
                elif op == Op.ACOSH:
                    _map_unary[T, Op.ACOSH](dst, src, padded)
                elif op == Op.ATANH:
                    _map_unary[T, Op.ATANH](dst, src, padded)
                elif op == Op.LOG2:
                    _map_unary[T, Op.LOG2](dst, src, padded)
                elif op == Op.LOG10:
                    _map_unary[T, Op.LOG10](dst, src, padded)
        elif op == Op.BITWISE_LEFT_SHIFT or op == Op.BITWISE_RIGHT_SHIFT:  # the shifts (the integer family's only)
            comptime if not T.is_floating_point():
                var p = register_of[T, S](ptrs, regs, stride, a)
                var q = register_of[T, S](ptrs, regs, stride, b)
                if op == Op.BITWISE_LEFT_SHIFT:
                    _map_binary[T, Op.BITWISE_LEFT_SHIFT](dst, p, q, padded)
                else:
                    _map_binary[T, Op.BITWISE_RIGHT_SHIFT](dst, p, q, padded)
        elif op == Op.GATHER:  # gather from data slot a at the positions in register b (view at consts[c - 1])
            var src = slot[S](data, a)
            _gather[S, T](dst, src, register_of[T, S](ptrs, regs, stride, b), start, count, consts + (c - 1))
        elif op == Op.AXIS_INDEX:  # the index along one axis of the trace's elements: (element // a) % b
            var q = start // a  # (kept as the element advances: no division per element)
            var r = start - q * a
            q %= b
            for i in range(count):
                dst.unsafe_store(i, Scalar[T](q))
                r += 1
                if r == a:
                    r = 0
                    q = q + 1 if q + 1 < b else 0
        elif op == Op.WRAP:  # wrap register a to the dtype code b (integers), or round it to float16 (b = Code.FLOAT16)
            var src = register_of[T, S](ptrs, regs, stride, a)
            comptime if not T.is_floating_point():
                for i in range(0, padded, w):
                    dst.unsafe_store(i, _wrap[w](b, src.unsafe_load[width=w](i).cast[DType.int64]()).cast[T]())
            else:
                if b == Code.FLOAT16:  # (float16 work runs in float32 registers, rounded after each op as NumPy's is)
                    for i in range(0, padded, w):
                        dst.unsafe_store(i, src.unsafe_load[width=w](i).cast[DType.float16]().cast[T]())
                else:  # (nothing to round: register d holds register a's values)
                    held = ptrs.unsafe_load(a)
        else:  # Op.WHERE: where(a != 0, b, c)
            var m = register_of[T, S](ptrs, regs, stride, a)
            var p = register_of[T, S](ptrs, regs, stride, b)
            var q = register_of[T, S](ptrs, regs, stride, c)
            for i in range(0, padded, w):
                dst.unsafe_store(i, m.unsafe_load[width=w](i).ne(0).select(p.unsafe_load[width=w](i), q.unsafe_load[width=w](i)))
        comptime if S == T:
            ptrs.unsafe_store(d, held)


def _last_stores_bytes(p: UnsafePointer[Int32, _]) -> Bool:
    """Whether a program's last instruction is an op ``_stores_bytes`` takes, computing its result."""
    var n = Int(p.unsafe_load(0))
    if n == 0:
        return False
    var at = HEADER + (n - 1) * WIDTH_OF_INSTRUCTION
    return _stores_bytes(Int(p.unsafe_load(at))) and Int(p.unsafe_load(at + 1)) == Int(p.unsafe_load(1))


def _meets_a_slot[T: DType](data: UnsafePointer[Int, _], dst: UnsafePointer[UInt8, MutAnyOrigin], m: Int) -> Bool:
    """Whether any of a stage's eight data slots (address, size in elements) shares memory with its
    output of ``m`` elements of T at ``dst``."""
    comptime size = size_of[T]()
    var lo = Int(dst)
    var hi = lo + m * size
    for s in range(8):
        var a = data.unsafe_load(2 * s)
        var n = data.unsafe_load(2 * s + 1)
        if a != 0 and n > 0 and a < hi and lo < a + n * size:
            return True
    return False


def map_into[T: DType, S: DType](p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _],
                                 dst: UnsafePointer[UInt8, MutAnyOrigin], n: Int, layout: UnsafePointer[Float64, _],
                                 strided: Bool) raises:
    """Evaluate a program over ``n`` elements into ``dst``: in order, or (``strided``) through the
    output's ``layout``. Float data: S = T, the output of T (``code``: its dtype code, for a strided
    store); bytes (S = uint8): the output's dtype code in the program's header."""
    comptime w = simd_width_of[T]()
    var code = Int(p.unsafe_load(5))
    # a complex result's pair (float family): the program runs over its n / 2 elements, its result
    # register the real parts and register ``pair - 1`` the imaginary ones, stored interleaved as
    # the storage's (re, im) pairs (in order, or through the storage's layout)
    var pair = Int(p.unsafe_load(6))
    # a float program's map of a bool result (a comparison of float data, ``r < c``): its loads
    # and constants the float family's, each value stored as a byte (the header's eighth field)
    var bools = False
    comptime if S == T:
        bools = Int(p.unsafe_load(7)) != 0
        code = Code.BOOL if bools else _code_of[T]()
    else:
        pair = 0
    var m = n // 2 if pair else n  # (the program's elements)
    var blocks = (m + BLOCK - 1) // BLOCK
    var tasks = (blocks + BLOCKS_PER_TASK - 1) // BLOCKS_PER_TASK
    var result = Int(p.unsafe_load(1))
    var stride = register_stride[T](m)

    var memory = registers_used(p) * stride  # (a task's registers: counted once for every task)
    # (the last instruction stores into the output where no data slot's memory meets it: an
    # in-place update reads the output's own memory, and keeps its store after the block)
    var direct = S == T and not pair and not strided and not bools and not _meets_a_slot[T](data, dst, m)
    # (a bool map whose last instruction is a comparison giving the result: its bytes stored as it
    # computes them, where no data slot's memory meets the output)
    var into_bytes = bools and not strided and _last_stores_bytes(p) and not _meets_a_slot[DType.uint8](data, dst, m)
    var constants = constant_registers(p)
    def task(t: Int) {memory, dst, p, k, data, m, blocks, result, code, stride, layout, strided, pair, direct,
                      constants, bools, into_bytes}:
        var regs = alloc[Scalar[T]](memory)
        var ptrs = alloc[Int](MAX_REGISTERS, alignment=64)  # (whole cache lines: tasks on other cores write theirs)
        var pairs = alloc[Scalar[T]](2 * BLOCK if pair and strided else 1)
        var last = min(blocks, (t + 1) * BLOCKS_PER_TASK)
        for blk in range(t * BLOCKS_PER_TASK, last):
            var start = blk * BLOCK
            var count = min(BLOCK, m - start)
            var out = 0
            comptime if S == T:
                if direct and count % w == 0:
                    out = Int(dst.unsafe_bitcast[Scalar[T]]() + start)
            # (a task's first block fills its constants, as many values as any later block's)
            var filled = 0
            comptime if S == T:
                filled = 0 if blk == t * BLOCKS_PER_TASK else constants
            _run_block[T, S](p, k, data, regs, stride, start, count, ptrs, -1, out, result, filled,
                             Int(dst) + start if into_bytes else 0)
            if into_bytes:
                continue  # (stored by its last instruction)
            var r = register_of[T, S](ptrs, regs, stride, result)
            if out != 0 and Int(r) == out:
                continue  # (stored by its last instruction)
            if pair:
                var q = register_of[T, S](ptrs, regs, stride, pair - 1)
                var out = pairs if strided else dst.unsafe_bitcast[Scalar[T]]() + 2 * start
                var whole = count // w * w
                for i in range(0, whole, w):
                    out.unsafe_store(2 * i, r.unsafe_load[width=w](i).interleave(q.unsafe_load[width=w](i)))
                for i in range(whole, count):
                    out.unsafe_store(2 * i, r.unsafe_load(i))
                    out.unsafe_store(2 * i + 1, q.unsafe_load(i))
                if strided:
                    store_strided[T](code, dst, pairs, 2 * start, 2 * count, layout)
            elif strided:
                store_strided[T](code, dst, r, start, count, layout)
            elif bools:
                store_coded[T](Code.BOOL, dst, r, start, count)
            else:
                comptime if S == T:
                    var typed = dst.unsafe_bitcast[Scalar[T]]()
                    var whole = count // w * w
                    for i in range(0, whole, w):
                        typed.unsafe_store(start + i, r.unsafe_load[width=w](i))
                    for i in range(whole, count):
                        typed.unsafe_store(start + i, r.unsafe_load(i))
                else:
                    store_coded[T](code, dst, r, start, count)
        regs.free()
        ptrs.free()
        pairs.free()

    # NumPy keeps denormals; MAX's worker threads, on which ``parallelize`` runs the tasks, flush
    # them to zero: each task keeps them, on whichever thread runs it
    def kept(t: Int) {task}:
        with KeepDenormals():
            task(t)

    if tasks == 1 or program_work(p, n) < SERIAL_WORK:
        for t in range(tasks):
            kept(t)
    else:
        parallelize(kept, tasks)
