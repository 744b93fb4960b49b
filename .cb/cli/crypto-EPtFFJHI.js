import { A as invalidArgument, T as corrupt } from "./front-BpLyP2oj.js";
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
// dist/keys/crypto.js
/**
* Envelope encryption for the vault (docs/design/keys.md). The operator
* supplies one 32-byte master key; each credential gets its own random data
* key, sealed under the master key, and its values are sealed under the data
* key. Every seal is AES-256-GCM with a fresh 96-bit nonce and associated
* data naming the tenant, the credential, its version and the field, so a
* sealed value moved to another row or field does not open.
*
* Sealed layout: `0x01 ‖ nonce (12) ‖ ciphertext ‖ tag (16)`.
*/
const FORMAT = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
var MasterKey = class MasterKey {
	key;
	/** A short public fingerprint: stored beside each sealed data key, so a wrong key is named, not guessed at. */
	id;
	constructor(key) {
		this.key = key;
		this.id = createHmac("sha256", key).update("cairn.vault.master-key-id.v1").digest("hex").slice(0, 16);
	}
	/** From the text of a key file or variable: 64 hex digits or base64 of 32 bytes. */
	static parse(text, where) {
		const trimmed = text.trim();
		const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, "hex") : /^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(trimmed) ? Buffer.from(trimmed, "base64") : Buffer.alloc(0);
		if (bytes.length !== 32) throw invalidArgument(`the master key in ${where} is not 32 bytes as 64 hex digits or base64: make one with \`openssl rand -hex 32\``, { where });
		return new MasterKey(bytes);
	}
	static generate() {
		return new MasterKey(randomBytes(32));
	}
	/** The key as 64 hex digits, for writing a key file (the CLI's `cred keygen`). */
	toHex() {
		return this.key.toString("hex");
	}
	wrap(dataKey, aad) {
		return seal(this.key, dataKey, aad);
	}
	unwrap(sealed, aad) {
		return open(this.key, sealed, aad);
	}
};
function newDataKey() {
	return randomBytes(32);
}
function seal(key, plaintext, aad) {
	const nonce = randomBytes(NONCE_BYTES);
	const cipher = createCipheriv("aes-256-gcm", key, nonce);
	cipher.setAAD(Buffer.from(aad));
	const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
	return Buffer.concat([
		Buffer.from([FORMAT]),
		nonce,
		body,
		cipher.getAuthTag()
	]);
}
function open(key, sealed, aad) {
	if (sealed.length < 29 || sealed[0] !== FORMAT) throw corrupt("a sealed vault value is malformed: the vault row was damaged");
	const nonce = sealed.subarray(1, 13);
	const tag = sealed.subarray(sealed.length - TAG_BYTES);
	const decipher = createDecipheriv("aes-256-gcm", key, nonce);
	decipher.setAAD(Buffer.from(aad));
	decipher.setAuthTag(tag);
	try {
		return Buffer.concat([decipher.update(sealed.subarray(13, sealed.length - TAG_BYTES)), decipher.final()]);
	} catch {
		throw corrupt("a sealed vault value failed authentication: it was altered or moved to another row");
	}
}
export { seal as i, newDataKey as n, open as r, MasterKey as t };
