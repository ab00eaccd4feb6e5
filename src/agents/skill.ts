/**
 * A CLI skill a plugin offers: a command-line program the model runs through a shell tool
 * (`bash`), documented by a SKILL.md file. Listed in the system prompt of agents whose
 * `toolExposure` is `"skills"` or `"mixed"`, filtered by the agent's
 * `skillAllowlist` / `skillDenylist` globs, which match {@link Skill.id}.
 */
export interface Skill {
  /** The id of the plugin that offers the skill; what skill globs match, e.g. `"notes"`. */
  id: string;
  /** Human-readable name, e.g. `"Notes"`. */
  name: string;
  /** What the skill does. The prompt shows its first line, shortened. */
  description: string;
  /** Path of the skill's SKILL.md, which the model should read before first use. */
  skillPath: string;
  /** Path of the skill's command-line program, run through the shell tool. */
  cliPath: string;
}
