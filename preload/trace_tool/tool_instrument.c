/* The instrumentation: each superblock's memory operations found once (loads, stores, guarded
 * loads and stores, compare-and-swap, LL/SC, dirty helpers that touch memory), described in a
 * memlog_block, and the block rewritten to call memlog_run_open at its start and memlog_op with
 * each operation's address; the thread's instruction count grows at the block's exits by the
 * instructions run so far (a load, an add and a store, no call). The recorder's own code
 * (libmemlog.so) and its unwinder's (libunwind), told by MEMLOG_TRACE_LOG, are neither traced
 * nor counted. */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"

#include "tool.h"
#include "tool_valgrind.h"

static Addr s_excludedLo[2], s_excludedHi[2];

void tool_exclude_code(int range, Addr lo, Addr hi) {
    s_excludedLo[range] = lo;
    s_excludedHi[range] = hi;
}

static Bool isRecorderCode(Addr address) {
    return (address >= s_excludedLo[0] && address < s_excludedHi[0]) ||
           (address >= s_excludedLo[1] && address < s_excludedHi[1]);
}

/* An operation as the first pass finds it: where its address and guard are in the IR. */
typedef struct {
    IRExpr* addr;
    IRExpr* guard; /* NULL: always made */
    struct memlog_block_op op;
} FoundOp;

static UInt loadGSize(IRLoadGOp conversion) {
    switch (conversion) {
        case ILGop_IdentV128: return 16;
        case ILGop_Ident64: return 8;
        case ILGop_Ident32: return 4;
        case ILGop_16Uto32:
        case ILGop_16Sto32: return 2;
        default: return 1;
    }
}

static Bool alwaysTrue(const IRExpr* guard) {
    return guard->tag == Iex_Const && guard->Iex.Const.con->tag == Ico_U1 && guard->Iex.Const.con->Ico.U1;
}

/* The first pass: the block's operations in order, and for each statement the operation it
 * makes (-1: none). A store to the address the same instruction has just loaded from, with the
 * same size, makes that load a read-modify-write (`add [rax], 1`), as lackey reports it. */
static UInt findOps(const IRSB* block, FoundOp* ops, Int* opOfStatement, UInt* instructions) {
    UInt count = 0, counted = 0;
    Int lastInInstruction = -1;
    Bool skipping = True; /* statements before the first IMark, and the recorder's */
    Addr ip = 0;
    for (Int i = 0; i < block->stmts_used; ++i) {
        const IRStmt* statement = block->stmts[i];
        opOfStatement[i] = -1;
        if (statement->tag == Ist_IMark) {
            ip = statement->Ist.IMark.addr;
            skipping = isRecorderCode(ip);
            if (!skipping) ++counted;
            lastInInstruction = -1;
            continue;
        }
        if (skipping) continue;
        IRExpr* addr = NULL;
        IRExpr* guard = NULL;
        UInt size = 0;
        UChar kind = 0;
        switch (statement->tag) {
            case Ist_WrTmp:
                if (statement->Ist.WrTmp.data->tag == Iex_Load) {
                    addr = statement->Ist.WrTmp.data->Iex.Load.addr;
                    size = sizeofIRType(statement->Ist.WrTmp.data->Iex.Load.ty);
                    kind = 1;
                }
                break;
            case Ist_Store: {
                addr = statement->Ist.Store.addr;
                size = sizeofIRType(typeOfIRExpr(block->tyenv, statement->Ist.Store.data));
                kind = 2;
                if (lastInInstruction >= 0) {
                    FoundOp* load = &ops[lastInInstruction];
                    if (load->op.kind == 1 && !load->guard && load->op.size == size && eqIRAtom(load->addr, addr)) {
                        load->op.kind = 3;
                        lastInInstruction = -1;
                        continue;
                    }
                }
                break;
            }
            case Ist_LoadG:
                addr = statement->Ist.LoadG.details->addr;
                guard = statement->Ist.LoadG.details->guard;
                size = loadGSize(statement->Ist.LoadG.details->cvt);
                kind = 1;
                break;
            case Ist_StoreG:
                addr = statement->Ist.StoreG.details->addr;
                guard = statement->Ist.StoreG.details->guard;
                size = sizeofIRType(typeOfIRExpr(block->tyenv, statement->Ist.StoreG.details->data));
                kind = 2;
                break;
            case Ist_CAS: {
                const IRCAS* cas = statement->Ist.CAS.details;
                addr = cas->addr;
                size = sizeofIRType(typeOfIRExpr(block->tyenv, cas->dataLo)) * (cas->dataHi ? 2 : 1);
                kind = 3;
                break;
            }
            case Ist_LLSC:
                addr = statement->Ist.LLSC.addr;
                if (statement->Ist.LLSC.storedata) {
                    size = sizeofIRType(typeOfIRExpr(block->tyenv, statement->Ist.LLSC.storedata));
                    kind = 2;
                } else {
                    size = sizeofIRType(typeOfIRTemp(block->tyenv, statement->Ist.LLSC.result));
                    kind = 1;
                }
                break;
            case Ist_Dirty: {
                const IRDirty* dirty = statement->Ist.Dirty.details;
                if (dirty->mFx == Ifx_None) break;
                addr = dirty->mAddr;
                size = (UInt)dirty->mSize;
                kind = dirty->mFx == Ifx_Read ? 1 : dirty->mFx == Ifx_Write ? 2 : 3;
                if (!alwaysTrue(dirty->guard)) guard = dirty->guard;
                break;
            }
            default:
                break;
        }
        if (!kind || size == 0) continue;
        tl_assert(count < MEMLOG_MAX_BLOCK_OPS);
        ops[count].addr = addr;
        ops[count].guard = guard;
        ops[count].op.ip = ip;
        ops[count].op.size = size;
        ops[count].op.kind = kind;
        ops[count].op.guarded = guard != NULL;
        ops[count].op.index = (UShort)(counted - 1);
        opOfStatement[i] = (Int)count;
        lastInInstruction = (Int)count;
        ++count;
    }
    *instructions = counted;
    return count;
}

static IRExpr* atomOf(IRSB* out, IRExpr* expression, IRType type) {
    if (isIRAtom(expression)) return expression;
    const IRTemp temp = newIRTemp(out->tyenv, type);
    addStmtToIRSB(out, IRStmt_WrTmp(temp, expression));
    return IRExpr_RdTmp(temp);
}

static void callHelper(IRSB* out, const HChar* name, void* function, IRExpr** arguments) {
    IRDirty* call = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(function), arguments);
    addStmtToIRSB(out, IRStmt_Dirty(call));
}

static void callForOp(IRSB* out, const FoundOp* found, Bool countOnly) {
    IRExpr* addr = atomOf(out, deepCopyIRExpr(found->addr), Ity_I64);
    IRExpr* done = NULL;
    if (found->guard) {
        const IRTemp wide = newIRTemp(out->tyenv, Ity_I64);
        addStmtToIRSB(out, IRStmt_WrTmp(wide, IRExpr_Unop(Iop_1Uto64, deepCopyIRExpr(found->guard))));
        done = IRExpr_RdTmp(wide);
    }
    if (countOnly) {
        IRExpr* kind = mkIRExpr_HWord(found->op.kind);
        if (done)
            callHelper(out, "memlog_count_op_guarded", memlog_count_op_guarded, mkIRExprVec_2(kind, done));
        else
            callHelper(out, "memlog_count_op", memlog_count_op, mkIRExprVec_1(kind));
    } else if (done) {
        callHelper(out, "memlog_op_guarded", memlog_op_guarded, mkIRExprVec_2(addr, done));
    } else {
        callHelper(out, "memlog_op", memlog_op, mkIRExprVec_1(addr));
    }
}

/* memlog_icount += instructions, when `guard` holds (NULL: always). */
static void addInstructions(IRSB* out, UInt instructions, IRExpr* guard) {
    IRExpr* where = mkIRExpr_HWord((HWord)&memlog_icount);
    const IRTemp old = newIRTemp(out->tyenv, Ity_I64), sum = newIRTemp(out->tyenv, Ity_I64);
    addStmtToIRSB(out, IRStmt_WrTmp(old, IRExpr_Load(Iend_LE, Ity_I64, where)));
    addStmtToIRSB(out, IRStmt_WrTmp(sum, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(old),
                                                      IRExpr_Const(IRConst_U64(instructions)))));
    if (guard)
        addStmtToIRSB(out, IRStmt_StoreG(Iend_LE, where, IRExpr_RdTmp(sum), deepCopyIRExpr(guard)));
    else
        addStmtToIRSB(out, IRStmt_Store(Iend_LE, where, IRExpr_RdTmp(sum)));
}

IRSB* tool_instrument(VgCallbackClosure* closure, IRSB* in, const VexGuestLayout* layout,
                      const VexGuestExtents* extents, const VexArchInfo* archInfo, IRType guestWord,
                      IRType hostWord) {
    (void)closure, (void)layout, (void)extents, (void)archInfo, (void)hostWord;
    tl_assert(guestWord == Ity_I64);
    FoundOp* found = VG_(malloc)("memlog.found", sizeof(FoundOp) * MEMLOG_MAX_BLOCK_OPS);
    Int* opOfStatement = VG_(malloc)("memlog.statements", sizeof(Int) * (in->stmts_used + 1));
    UInt instructions = 0;
    const UInt count = findOps(in, found, opOfStatement, &instructions);

    IRSB* out = deepCopyIRSBExceptStmts(in);
    if (count && !tool_count_only()) {
        struct memlog_block* block =
            VG_(malloc)("memlog.block", sizeof(struct memlog_block) + count * sizeof(struct memlog_block_op));
        block->ops = count;
        block->stream_serial = 0;
        block->stream_entry = NULL;
        for (UInt i = 0; i < count; ++i) block->op[i] = found[i].op;
        callHelper(out, "memlog_run_open", memlog_run_open, mkIRExprVec_1(mkIRExpr_HWord((HWord)block)));
    }
    UInt counted = 0;
    Bool skipping = True;
    for (Int i = 0; i < in->stmts_used; ++i) {
        IRStmt* statement = in->stmts[i];
        if (statement->tag == Ist_IMark) {
            skipping = isRecorderCode(statement->Ist.IMark.addr);
            if (!skipping) ++counted;
        } else if (statement->tag == Ist_Exit && counted) {
            addInstructions(out, counted, statement->Ist.Exit.guard);
        }
        if (opOfStatement[i] >= 0) callForOp(out, &found[opOfStatement[i]], tool_count_only());
        addStmtToIRSB(out, statement);
    }
    if (instructions) addInstructions(out, instructions, NULL);
    VG_(free)(opOfStatement);
    VG_(free)(found);
    return out;
}
