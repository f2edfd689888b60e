// The declarations name Node's types (Buffer, node:fs): a project that does not list "node" in `types` (TypeScript 7's default) still gets them.
/// <reference types="node" preserve="true" />
/**
 * `gamma-prompt/runtime`: loads the verified dist/ artifacts into Pi and keeps
 * the session protocol (skills, tasks, yield, compaction recovery). Imports no
 * compiler dependency.
 */
export {
  ArtifactVerificationError,
  InterruptedBuildError,
  defaultDistDir,
  loadArtifacts,
  readSkillFile,
  skillBaseDir,
  type ArtifactProblem,
  type ArtifactProblemKind,
  type LoadArtifactsOptions,
  type LoadedArtifacts,
  type LoadedSkill,
  type SkillFile,
  type SkillType,
} from "./artifacts.js";
export {
  InjectionsNotDefinedError,
  SessionProtocolController,
  UnknownVariantError,
  StoredVariantError,
  type ControllerOptions,
  type ToolLoader,
  type TurnInput,
  type TurnMessage,
} from "./controller.js";
export {
  ANCHOR_CUSTOM_TYPE,
  createTrustedMessage,
  dropStaleAnchors,
  isAnchorMessage,
  isGammaCustomMessage,
  type GammaCustomMessage,
  type GammaMessageDetails,
  type ImagePart,
  type RuntimeUserMessage,
  type TextPart,
  type TrustedMessageInput,
} from "./messages.js";
export { MemoryStateStore, type MaybePromise, type StateRecovery, type StateStoreOptions, type StateStore } from "./state/store.js";
export { FileStateStore, type FileStateStoreOptions } from "./state/file-store.js";
export { SessionDisposedError, StateConflictError, StateStoreError, StateWriteFailedError, STATE_VERSION } from "./state/errors.js";
export type {
  ActiveSkill,
  ArtifactReference,
  ExecutionState,
  JsonValue,
  PendingInjection,
  PiQueue,
  SkillActivationSource,
  RequiredSkill,
  RequirementScope,
  Task,
  TaskSnapshot,
  TaskStatus,
  LoadedNamespace,
  NamespaceLoadSource,
} from "./execution-state.js";
export { replayState, type StateChange, type StateRecord } from "./state/journal.js";
export { SkillToolError } from "./skills.js";
export { TodoToolError, TASK_STATUSES } from "./tasks.js";
export { ExecutorResultError, RUNTIME_TOOL_NAMES, ToolSetupError, type HostExecutors, type ToolExecutor, type ToolOutcome } from "./tools.js";
export { HintsNotMadeError, MessageUserError, SHARED_BATCH_NOTE, TurnNotSentError, WakeTurnFailedError, type ProtocolEvent, type RuntimeErrorPhase, type YieldRecord } from "./yield.js";
export { MAX_BREAKPOINTS, systemBlocks, type SystemBlock } from "./cache-plan.js";
export {
  promptCacheKeys,
  supportsLongRetention,
  EXPLICIT_MODE_LONG_TTL,
  type CacheTtl,
  type CacheWarming,
  type PromptCacheKeyInput,
  type PromptCacheKeyPolicy,
  type PromptCacheOptions,
} from "./prompt-cache.js";
export type { CacheBlockName, CachePlan, CachePlanBlock, VariantCachePlan } from "../protocol/cache-plan.js";
export {
  convertGammaMessages,
  createGammaAgent,
  createGammaSession,
  defaultThinkingLevel,
  followUpAgent,
  openGammaAgent,
  restoreAgentContext,
  sendSessionMessage,
  steerAgent,
  toolAdditionsInPlace,
  type ConnectorRestorer,
  type ControllerSource,
  type GammaAgent,
  type GammaAgentOptions,
  type GammaSession,
  type GammaSessionOptions,
  type SessionDelivery,
  type ToolLoadingPolicy,
} from "./pi-adapter.js";
export { LOAD_NAMESPACE_TOOL, NamespaceToolError, type SessionNamespace } from "./namespaces.js";
// A scripted model on pi-ai's faux provider and stub host tools: the runtime without a key, for tests and first runs.
export {
  scriptedModel,
  stubExecutors,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedReply,
  type ScriptedToolCall,
  type StubAnswer,
  type StubExecutorOptions,
} from "./pi/scripted-model.pi-adapter.js";
// Connectors: tool namespaces a host registers on a live session, checked by the compiler's tool rules.
export {
  ConnectorRejectedError,
  ConnectorsNotAnnouncedError,
  UnknownConnectorError,
  type ConnectorChange,
  type ConnectorDefinition,
  type ConnectorProblem,
  type ConnectorRegistration,
  type ConnectorRestore,
  type DroppedConnector,
} from "./connectors.js";
export { TOOL_RULE_SEVERITIES, type ToolRuleId, type ToolRuleProblem } from "../protocol/tool-rules.js";
// Runtime injections: envelope, rendering, neutralisation, queue and delivery policy.
export * from "./injections/index.js";
// Workflow checklists: progress per step, deviations, and the completion audit.
export { checklistProgress, renderProgress, STEP_STATUSES, type ChecklistProgress, type Deviation, type StepProgress, type StepStatus } from "./checklist/progress.js";
export { AUDIT_RULES, auditFold, auditTranscript, emptyFold, foldEvent, type AuditFinding, type AuditFold, type AuditOutcome, type AuditReport, type AuditRuleId, type AuditSkill } from "./audit/audit.js";
export { AUDIT_MODES, AuditPolicyError, DEFAULT_AUDIT_MODE, DEFAULT_MAX_BLOCKS, resolveAuditMode, type AuditMode, type AuditPolicy } from "./audit/policy.js";
export { AuditRecorder, FileSessionLog, type SessionLog } from "./audit/recorder.js";
// Invocation enforcement: skills a request requires, refused task actions until they are active.
export { DEFAULT_MAX_REFUSALS, RequiredSkillError, type InvocationPolicy, type RequiredSkillsEvent } from "./invocation/required-skills.js";
export { TASK_ACTION_TOOLS, type PositionedEvent, type TranscriptEvent } from "./audit/transcript.js";
export { parseStepReference, stepReference, stepsFile, type ChecklistStep, type SkillChecklist } from "../protocol/checklist.js";
// Scoped knowledge: compiled and live notes, candidate selection, hints and read_workspace_rule.
export { BLOCKING_LINE, KNOWLEDGE_HINTS_TYPE, KnowledgeToolError, SessionKnowledge, type KnowledgeHost, type KnowledgeOptions } from "./knowledge/session-knowledge.js";
export { KnowledgeNoteRejectedError, type KnowledgeNote, type LiveNoteInput } from "./knowledge/notes.js";
export { MiniSearchSelector, type KnowledgeCandidate, type KnowledgeQuery, type KnowledgeSelector } from "./knowledge/selector.js";
export type { LoadedKnowledge } from "./knowledge/artifacts.js";
export type { KnowledgeNotice, KnowledgeSessionState, LoadedNoteRecord } from "./knowledge/types.js";
