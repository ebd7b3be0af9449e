export { MaskBenchTally, outcomeOf, Samples, sieveGrammarEngine } from './maskbench-core.ts';
export type { EngineGrammar, GrammarEngine, MaskBenchCase, MaskBenchResult, Outcome } from './maskbench-core.ts';
export { STEP_PARTS } from './reports.ts';
export type {
  BrleReport,
  BrleStats,
  BrowserMaskBenchReport,
  GenerationLoad,
  GenerationReport,
  GenerationSchemaResult,
  GenerationSide,
  MaskBenchSummary,
  StepPart,
  VocabReport,
} from './reports.ts';
