// Dumps the price data of an unpacked @pydantic/genai-prices npm package as
// JSON for go generate ./guard/pricing (development only):
//
//   npm pack @pydantic/genai-prices && tar xzf pydantic-genai-prices-*.tgz
//   node scripts/genai-prices-json.mjs "$PWD/package" "$(npm view @pydantic/genai-prices time --json | ...)" > genai-prices.json
//
// The second argument is the version's publication date, YYYY-MM-DD.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [dir, published] = process.argv.slice(2);
if (!dir || !/^\d{4}-\d{2}-\d{2}$/.test(published ?? '')) {
  console.error('usage: node genai-prices-json.mjs PACKAGE_DIR YYYY-MM-DD');
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'));
const entry = `${dir}/dist/index.js`;
// The package exports lookups, not its list: the provider ids are read from
// the bundled data and each is fetched through the public findProvider.
const ids = [...readFileSync(entry, 'utf8').matchAll(/^ {4}id: "([^"]+)",$/gm)].map((m) => m[1]);
const { findProvider } = await import(pathToFileURL(entry).href);
const providers = ids.map((id) => findProvider({ providerId: id }));
if (providers.length === 0 || providers.some((p, i) => !p || p.id !== ids[i])) {
  console.error('genai-prices-json: the package layout changed; provider ids did not resolve');
  process.exit(1);
}
console.log(JSON.stringify({ package: pkg.name, version: pkg.version, published, providers }));
