import { randomBytes } from 'node:crypto';
import { CairnError } from '../../errors.js';
import type { Fabric } from '../../fabric.js';
import type { KeysConformanceTarget } from '../keys-conformance.js';

export const LIVE_UPSTREAM = 'https://api.example.test/v1';
export const SANDBOX_UPSTREAM = 'https://sandbox.example.test/v1';
export const NO_GRANT = 'gr_00000000000000000000000000';
export const NO_APPROVAL = 'ap_00000000000000000000000000';
export const NO_SESSION = 'ss_00000000000000000000000000';

type Credential = Awaited<ReturnType<Fabric['addCredential']>>;

/** The fabric, with the JSON of every answer and every error it gives kept in `answers`. */
function recording(fabric: Fabric, answers: string[]): Fabric {
  return new Proxy(fabric, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== 'function') return value;
      if (property === 'close') return value.bind(target);
      return async (...args: unknown[]) => {
        try {
          const answer = await value.apply(target, args);
          answers.push(JSON.stringify(answer) ?? '');
          return answer;
        } catch (error) {
          answers.push(
            error instanceof CairnError ? JSON.stringify(error.toJSON()) : String((error as Error)?.stack),
          );
          throw error;
        }
      };
    },
  });
}

/**
 * What the cases of one run share: the target's two tenants (every answer
 * recorded), a session of tenant A's, fresh names, and every credential
 * value given to the vault, for the scans. Set by `open` in `beforeAll`;
 * read it inside a case, not where the case is declared.
 */
export class KeysSuite {
  target!: KeysConformanceTarget;
  /** Tenant A, its answers recorded. */
  a!: Fabric;
  /** Tenant B, its answers recorded. */
  b!: Fabric;
  /** A session of tenant A's with one event on main. */
  session = '';
  /** Every answer and error either tenant got, as JSON. */
  readonly answers: string[] = [];
  /** Every credential value the suite gave the vault. */
  readonly secrets: string[] = [];
  private n = 0;
  private readonly liveValues = new Map<string, string>();

  async open(target: KeysConformanceTarget): Promise<void> {
    this.target = target;
    this.a = recording(target.tenantA, this.answers);
    this.b = recording(target.tenantB, this.answers);
    this.session = (await this.a.createSession({ title: 'keys conformance' })).id;
    await this.a.append({ session: this.session, kind: 'note', payload: 'state 42' });
  }

  /** A name not used before in this run (credentials and branches). */
  fresh = (label: string): string => `${label}-${++this.n}`;

  /** A new credential value, remembered for the scans. */
  secret = (label: string): string => {
    const value = `sk_${label}_${randomBytes(12).toString('hex')}`;
    this.secrets.push(value);
    return value;
  };

  /** The values found in any answer so far, in the clear, as hex or as base64 ([] is the only good answer). */
  leaked = (): string[] =>
    this.secrets.filter((s) => {
      const forms = [s, Buffer.from(s).toString('hex'), Buffer.from(s).toString('base64')];
      return this.answers.some((text) => forms.some((form) => text.includes(form)));
    });

  /** A new branch of the suite's session, forked from main; its name. */
  branch = async (label: string): Promise<string> =>
    (await this.a.fork({ session: this.session, from: 'main', name: this.fresh(label) })).name;

  /** A bearer credential of tenant A with a live and a sandbox value. */
  credential = async (label: string): Promise<Credential> => {
    const name = this.fresh(label);
    const value = this.secret(`${label}_live`);
    this.liveValues.set(name, value);
    return this.a.addCredential({
      name,
      kind: 'bearer',
      upstream: LIVE_UPSTREAM,
      value,
      sandbox: { upstream: SANDBOX_UPSTREAM, value: this.secret(`${label}_sandbox`) },
    });
  };

  /** The live value of a credential `credential` added. */
  liveValue = (name: string): string => {
    const value = this.liveValues.get(name);
    if (value === undefined) throw new Error(`no credential ${name} was added by credential()`);
    return value;
  };

  /** Ids in a stable order (ids made in the same millisecond sort at random). */
  sorted = (ids: string[]): string[] => [...ids].sort();

  /** How many audit entries a tenant has (default A). */
  auditEntries = async (fabric: Fabric = this.a): Promise<number> => (await fabric.verifyAudit()).entries;
}
