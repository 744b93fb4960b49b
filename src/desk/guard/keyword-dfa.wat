;; The secret guard's keyword DFA over one window (see automaton.ts).
;; Memory, laid out by the caller: the transition table at 0 (i32 per entry;
;; index state*256 | byte; value next state*256, negated when that state ends a
;; keyword), one byte per state at $seen (set to 1 when a keyword ending in that
;; state occurs), hit end offsets (i32) at $out, the window itself after them.
;; Rebuild: wat2wasm keyword-dfa.wat (wabt 1.0.39), then base64 into keyword-dfa-wasm.ts.
(module
  (memory (export "memory") 1)
  ;; Two DFA runs interleaved (independent states, so the CPU overlaps their loads):
  ;; run A over [$a, $aEnd), run B over [$b, $bEnd); the caller makes A end past B's start
  ;; by the longest keyword, so nothing straddling is missed, and drops duplicate hits.
  ;; Hit end offsets (relative to $base) go to $out (at most $max); returns the count.
  (func $hit (param $s i32) (param $pos i32) (param $seen i32) (param $out i32) (param $max i32) (param $n i32) (result i32)
    (i32.store8 (i32.add (local.get $seen) (i32.shr_u (local.get $s) (i32.const 8))) (i32.const 1))
    (if (i32.lt_u (local.get $n) (local.get $max))
      (then (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))) (local.get $pos))))
    (i32.add (local.get $n) (i32.const 1)))
  (func (export "scan2")
    (param $base i32) (param $a i32) (param $aEnd i32) (param $b i32) (param $bEnd i32)
    (param $seen i32) (param $out i32) (param $max i32) (result i32)
    (local $sa i32) (local $sb i32) (local $n i32)
    (block $done
      (loop $next
        (br_if $done (i32.and (i32.ge_u (local.get $a) (local.get $aEnd)) (i32.ge_u (local.get $b) (local.get $bEnd))))
        (if (i32.lt_u (local.get $a) (local.get $aEnd))
          (then
            (local.set $sa (i32.load (i32.shl (i32.or (local.get $sa) (i32.load8_u (local.get $a))) (i32.const 2))))
            (local.set $a (i32.add (local.get $a) (i32.const 1)))
            (if (i32.lt_s (local.get $sa) (i32.const 0))
              (then
                (local.set $sa (i32.sub (i32.const 0) (local.get $sa)))
                (local.set $n (call $hit (local.get $sa) (i32.sub (local.get $a) (local.get $base)) (local.get $seen) (local.get $out) (local.get $max) (local.get $n)))))))
        (if (i32.lt_u (local.get $b) (local.get $bEnd))
          (then
            (local.set $sb (i32.load (i32.shl (i32.or (local.get $sb) (i32.load8_u (local.get $b))) (i32.const 2))))
            (local.set $b (i32.add (local.get $b) (i32.const 1)))
            (if (i32.lt_s (local.get $sb) (i32.const 0))
              (then
                (local.set $sb (i32.sub (i32.const 0) (local.get $sb)))
                (local.set $n (call $hit (local.get $sb) (i32.sub (local.get $b) (local.get $base)) (local.get $seen) (local.get $out) (local.get $max) (local.get $n)))))))
        (br $next)))
    (local.get $n)))
