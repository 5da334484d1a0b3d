// Every config key from the environment as `SENDMOCK_<KEY>`, for the executable and the image, where a file or a flag is
// the harder thing to give: text as written for a key that takes text, else JSON or YAML's flow style.

import { checkConfig, renameKeys, type FileSettings } from "./check.js";
import type { SendMockOptions } from "./resolve.js";
import { DECLARED_SETTINGS, snakeToCamel, type SettingKey } from "./schema.js";
import type { KeyNaming } from "../contract/schema-check.js";
import { yaml } from "../domain/yaml.js";

/** `SENDMOCK_RATE_LIMIT` for rate_limit: the declaration's variable where its flag names one, else the key in upper case. */
export function environmentVariableOf(key: SettingKey): string {
  const declared = DECLARED_SETTINGS.find(([declaredKey]) => declaredKey === key)?.[1];
  return declared?.flag?.env ?? `SENDMOCK_${key.toUpperCase()}`;
}

/** The keys read here: those whose flag has no variable of its own (commander reads those with the flag). */
const READ_HERE = DECLARED_SETTINGS.filter(([, declaration]) => declaration.flag?.env === undefined).map(([key]) => key);

/** The variables read here, as a start error's note names those that were set. */
export const ENVIRONMENT_SETTINGS: readonly string[] = READ_HERE.map(environmentVariableOf);

const NAMING: KeyNaming = (key, parent) => (parent.length === 0 ? environmentVariableOf(key as SettingKey) : key);

/**
 * The value a variable's text gives `key`: YAML (JSON is YAML) so that `true`, `5`, `[a, b]` and
 * `{requests: 5, per_seconds: 1}` are what they say; but the text itself where that is what the
 * key takes and the YAML is not, so `SENDMOCK_ADMIN_TOKEN=12345678` is a token and not a number.
 */
function valueOf(key: SettingKey, text: string): unknown {
  let parsed: unknown;
  try {
    // Loaded only when a variable is set: the yaml package costs a start that reads none ~20 ms.
    parsed = yaml().parse(text) as unknown;
  } catch {
    return text;
  }
  const fits = (value: unknown): boolean => {
    try {
      checkConfig({ [key]: value }, "environment", NAMING);
      return true;
    } catch {
      return false;
    }
  };
  return fits(parsed) || !fits(text) ? parsed : text;
}

/** The config file's variable, as the commands' `--config` reads it. */
export const CONFIG_FILE_VARIABLE = "SENDMOCK_CONFIG";

/** The settings the variables of `keys` give, snake_case as a file writes them, checked: a bad one is a ConfigError naming its variable. */
function settingsOf(env: NodeJS.ProcessEnv, keys: readonly SettingKey[]): FileSettings {
  const settings: FileSettings = {};
  for (const key of keys) {
    const text = env[environmentVariableOf(key)];
    if (text !== undefined && text !== "") settings[key] = valueOf(key, text);
  }
  checkConfig(settings, "environment", NAMING);
  return settings;
}

/** The settings of the variables commander does not read with a flag (the commands read those with their flags). */
export function settingsFromEnvironment(env: NodeJS.ProcessEnv): FileSettings {
  return settingsOf(env, READ_HERE);
}

/**
 * What `sendmock serve` reads from the environment, as the library's options: every key's variable,
 * the flags' own included (`SENDMOCK_PORT`, `SENDMOCK_TEMPLATES`, …), and the config file's. For a
 * mock started with no command line to read those: the test runners' one server per run.
 */
export function mockOptionsFromEnvironment(env: NodeJS.ProcessEnv): SendMockOptions {
  const settings = settingsOf(
    env,
    DECLARED_SETTINGS.map(([key]) => key),
  );
  const configFile = env[CONFIG_FILE_VARIABLE];
  return { ...(renameKeys(settings, snakeToCamel) as SendMockOptions), ...(configFile === undefined || configFile === "" ? {} : { config: configFile }) };
}
