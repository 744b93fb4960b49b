/** `cairn/steps`: durable tool steps and the unit of work (checkpoint, restore, fork of mind, desk and keys). */
export {
  Journal,
  type ProbeAnswer,
  STEP_EVENT,
  STEP_RESOLVE_EVENT,
  type StepContext,
  StepFailed,
  type StepOptions,
  type StepPolicy,
  type StepRecord,
} from '../steps/journal.js';
export { type ExecResult, execInWorkspace } from '../unit/exec.js';
export { type CheckResult, type UnitCheckpoint, type UnitRestorePreview, Units } from '../unit/unit.js';
