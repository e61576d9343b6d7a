/**
 * The `yaml` library, loaded on first use: the rule files a daemon reads are nearly always
 * plain enough for the one-pass reader (`plain-yaml.ts`), and then it never needs the
 * library's syntax trees, nor the memory the library takes once loaded.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let library: typeof Yaml | undefined;
const requireYaml = createRequire(import.meta.url);

/** The `yaml` library's module, the same one `import … from 'yaml'` gives. */
export function yamlLibrary(): typeof Yaml {
  library ??= requireYaml('yaml') as typeof Yaml;
  return library;
}
