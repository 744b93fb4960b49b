// Deterministic memory-like texts for bench/memory.mjs: a seeded PRNG, a
// vocabulary of English words of our own followed by generated
// pseudo-words, and Zipf-distributed word frequencies (rank r drawn with
// probability ∝ 1/r), so the first words behave like function words found in
// most texts and the long tail like names found in a few — the posting-list
// sizes a real index sees. No downloads.
import { prng } from './tree-gen.mjs';

// biome-ignore format: a word list, most frequent first
const FUNCTION_WORDS = [
  'the', 'to', 'and', 'a', 'of', 'in', 'for', 'is', 'on', 'with', 'we', 'it', 'that', 'user', 'at', 'by',
  'from', 'be', 'this', 'not', 'or', 'as', 'are', 'an', 'when', 'should', 'after', 'before', 'uses', 'has',
  'all', 'new', 'our', 'their', 'was', 'into', 'only', 'each', 'no', 'then',
];
// biome-ignore format: a word list
const CONTENT_WORDS = [
  'deploy', 'service', 'billing', 'invoice', 'customer', 'refund', 'order', 'payment', 'account', 'login',
  'password', 'reset', 'email', 'report', 'weekly', 'monthly', 'meeting', 'standup', 'review', 'release',
  'branch', 'merge', 'commit', 'build', 'test', 'pipeline', 'staging', 'production', 'database', 'migration',
  'schema', 'index', 'query', 'cache', 'timeout', 'retry', 'queue', 'worker', 'cron', 'backup', 'restore',
  'server', 'cluster', 'node', 'region', 'latency', 'error', 'alert', 'pager', 'incident', 'outage', 'ticket',
  'support', 'escalate', 'priority', 'deadline', 'sprint', 'roadmap', 'budget', 'vendor', 'contract', 'legal',
  'privacy', 'consent', 'export', 'import', 'csv', 'spreadsheet', 'dashboard', 'metric', 'chart', 'graph',
  'prefers', 'likes', 'dislikes', 'vegetarian', 'coffee', 'tea', 'morning', 'evening', 'timezone', 'berlin',
  'london', 'tokyo', 'remote', 'office', 'holiday', 'vacation', 'travel', 'flight', 'hotel', 'booking',
  'calendar', 'reminder', 'birthday', 'manager', 'team', 'designer', 'engineer', 'intern', 'contractor',
  'python', 'typescript', 'rust', 'golang', 'java', 'kotlin', 'swift', 'react', 'postgres', 'sqlite', 'redis',
  'kafka', 'docker', 'kubernetes', 'terraform', 'aws', 'gcp', 'azure', 'linux', 'macos', 'windows', 'laptop',
  'keyboard', 'monitor', 'dark', 'theme', 'font', 'editor', 'vim', 'emacs', 'tabs', 'spaces', 'formatter',
  'linter', 'style', 'naming', 'convention', 'documentation', 'readme', 'changelog', 'license', 'audit',
  'security', 'token', 'credential', 'vault', 'rotation', 'permission', 'role', 'admin', 'tenant', 'quota',
  'limit', 'plan', 'pricing', 'discount', 'coupon', 'shipping', 'warehouse', 'inventory', 'stock', 'supplier',
  'recipe', 'pasta', 'risotto', 'salad', 'allergy', 'peanut', 'gluten', 'lunch', 'dinner', 'breakfast',
  'gym', 'running', 'cycling', 'piano', 'guitar', 'book', 'novel', 'podcast', 'movie', 'music', 'playlist',
];
const SYLLABLES =
  'ba be bi bo bu da de di do du fa fe fi fo ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo za ze zo tor mar len dex vin sul'.split(
    ' ',
  );

/** The vocabulary, most frequent first: function words, content words, then pseudo-words up to `size`. */
export function vocabulary(size = 30_000, seed = 0x5eed) {
  const rand = prng(seed);
  const words = [...FUNCTION_WORDS, ...CONTENT_WORDS];
  const seen = new Set(words);
  while (words.length < size) {
    const parts = 2 + Math.floor(rand() * 3);
    let w = '';
    for (let i = 0; i < parts; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  return words;
}

export const FUNCTION_RANKS = FUNCTION_WORDS.length;

/** A sampler of ranks 0..size-1 with P(r) ∝ 1/(r+1)^s (inverse CDF by binary search). */
export function zipf(size, rand, s = 1) {
  const cdf = new Float64Array(size);
  let total = 0;
  for (let r = 0; r < size; r++) {
    total += 1 / (r + 1) ** s;
    cdf[r] = total;
  }
  return (from = 0) => {
    const lo0 = from === 0 ? 0 : cdf[from - 1];
    const u = lo0 + rand() * (total - lo0);
    let lo = from;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/**
 * `count` texts of 8–28 words each, Zipf-distributed over the vocabulary,
 * written as a sentence; the same seed gives the same texts.
 */
export function* texts(count, { seed = 1, words = vocabulary() } = {}) {
  const rand = prng(seed);
  const rank = zipf(words.length, rand);
  for (let i = 0; i < count; i++) {
    const length = 8 + Math.floor(rand() * 21);
    const out = [];
    for (let j = 0; j < length; j++) out.push(words[rank()]);
    out[0] = out[0][0].toUpperCase() + out[0].slice(1);
    yield `${out.join(' ')}.`;
  }
}

/**
 * Queries drawn from the same distribution. `keywords`: 2–3 words, none a
 * function word (what a tool call tends to send); `question`: one or two
 * function words and one or two content words (what a person types).
 */
export function queries(count, { seed = 2, words = vocabulary() } = {}) {
  const rand = prng(seed);
  const rank = zipf(words.length, rand);
  const functionRank = zipf(FUNCTION_RANKS, rand);
  const out = [];
  for (let i = 0; i < count; i++) {
    const question = i % 2 === 1;
    const picked = new Set();
    const content = question ? 1 + Math.floor(rand() * 2) : 2 + Math.floor(rand() * 2);
    while (picked.size < content) picked.add(words[rank(FUNCTION_RANKS)]);
    if (question) {
      const fn = 1 + Math.floor(rand() * 2);
      for (let j = 0; j < fn; j++) picked.add(words[functionRank()]);
    }
    out.push({ kind: question ? 'question' : 'keywords', text: [...picked].join(' ') });
  }
  return out;
}
