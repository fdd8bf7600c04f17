/**
 * Tasks: the runner's face, for the media Worker alone (decision 032). Running a task runs its operation's steps,
 * and the preview and tech-fields steps decode files: the API Worker imports ./index, never this file, so it never
 * links a decoder (tests/unit/api-worker-graph.test.ts).
 */
export { failDeadLetter, runProcessVariants, runTaskWakeup } from "./task-runner";
