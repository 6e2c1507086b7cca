// A software passkey and an owner's browser over plain HTTP: an ES256 key made here, and the answers a browser
// and an authenticator would give (attestation "none"), so a test enrols and signs in on the production server
// without Chromium; cookies kept as a browser keeps them for /owner.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { isoBase64URL, isoCBOR } from "@simplewebauthn/server/helpers";
import { raw, type Raw } from "./raw-http";

const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();
const base64url = (data: Uint8Array | string) => isoBase64URL.fromBuffer(Buffer.from(data));
const FLAGS = { userPresent: 0x01, userVerified: 0x04, attested: 0x40 };

/**
 * One authenticator holding one passkey for `origin`'s host. `counting`: its signature counter goes up with each
 * use; false: always 0, as many synced passkeys do, so only the server's one-use challenge refuses a replay.
 */
export function softwarePasskey(origin: string, { counting = true } = {}) {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const id = randomBytes(16);
  let counter = 0;
  const rpIdHash = sha256(new URL(origin).hostname);
  const authData = (flags: number, attested: Buffer = Buffer.alloc(0)) => {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counting ? ++counter : 0);
    return Buffer.concat([rpIdHash, Buffer.from([flags]), count, attested]);
  };
  const clientData = (type: string, challenge: string) =>
    Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));

  return {
    id: base64url(id),
    register(options: PublicKeyCredentialCreationOptionsJSON): RegistrationResponseJSON {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(id.length);
      const attested = Buffer.concat([Buffer.alloc(16), length, id, coseKey(publicKey)]);
      const attestationObject = isoCBOR.encode(
        new Map<string, string | Map<string, string> | Uint8Array>([
          ["fmt", "none"],
          ["attStmt", new Map<string, string>()],
          ["authData", authData(FLAGS.userPresent | FLAGS.userVerified | FLAGS.attested, attested)],
        ]),
      );
      return {
        id: base64url(id),
        rawId: base64url(id),
        type: "public-key",
        response: {
          clientDataJSON: base64url(clientData("webauthn.create", options.challenge)),
          attestationObject: base64url(attestationObject),
          transports: ["internal"],
        },
        clientExtensionResults: {},
        authenticatorAttachment: "platform",
      };
    },
    authenticate(options: PublicKeyCredentialRequestOptionsJSON): AuthenticationResponseJSON {
      const data = authData(FLAGS.userPresent | FLAGS.userVerified);
      const client = clientData("webauthn.get", options.challenge);
      return {
        id: base64url(id),
        rawId: base64url(id),
        type: "public-key",
        response: {
          clientDataJSON: base64url(client),
          authenticatorData: base64url(data),
          signature: base64url(sign("sha256", Buffer.concat([data, sha256(client)]), privateKey)),
          userHandle: base64url("owner"),
        },
        clientExtensionResults: {},
        authenticatorAttachment: "platform",
      };
    },
  };
}

export type SoftwarePasskey = ReturnType<typeof softwarePasskey>;

/** The public key as COSE (EC2, P-256, ES256), as an authenticator reports it. */
function coseKey(publicKey: KeyObject): Uint8Array {
  const { x, y } = publicKey.export({ format: "jwk" });
  return isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, isoBase64URL.toBuffer(x!)],
      [-3, isoBase64URL.toBuffer(y!)],
    ]),
  );
}

export type Answer = { status: number; body: Record<string, unknown>; raw: Raw };

/**
 * A browser on the owner's page at `server` (the address it connects to; `origin` is what its Origin header
 * names), keeping the cookies /owner sets; `headers` go with every request (an X-Forwarded-For, say).
 */
export function ownerBrowser(server: string, origin: string, headers: Record<string, string> = {}) {
  const jar = new Map<string, string>();
  const keep = (answer: Raw) => {
    const set = answer.headers["set-cookie"] ?? [];
    for (const line of Array.isArray(set) ? set : [set]) {
      const [pair = ""] = line.split(";");
      const name = pair.slice(0, pair.indexOf("="));
      if (/;\s*max-age=0\b|;\s*expires=thu, 01 jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, pair.slice(name.length + 1));
    }
  };
  const cookie = (): Record<string, string> =>
    jar.size ? { Cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; ") } : {};

  async function step(fields: Record<string, string>): Promise<Answer> {
    const answer = await raw(`${server}/owner/passkey`, {
      method: "POST",
      headers: {
        Origin: origin,
        "Content-Type": "application/x-www-form-urlencoded",
        ...headers,
        ...cookie(),
      },
      body: new URLSearchParams(fields).toString(),
    });
    keep(answer);
    return {
      status: answer.status,
      body: JSON.parse(answer.body.toString("utf8")) as Record<string, unknown>,
      raw: answer,
    };
  }

  return {
    jar,
    step,
    /** GET a page of the owner's, with this browser's cookies. */
    get: async (where: string) => {
      const answer = await raw(`${server}${where}`, { headers: { ...headers, ...cookie() } });
      keep(answer);
      return answer;
    },
    async startEnrol(token: string) {
      return step({ step: "enrol_options", token });
    },
    async finishEnrol(passkey: SoftwarePasskey, started: Answer) {
      const options = started.body.options as PublicKeyCredentialCreationOptionsJSON;
      return step({ step: "enrol", response: JSON.stringify(passkey.register(options)) });
    },
    async startSignIn() {
      return step({ step: "sign_in_options" });
    },
    /** The answer of `passkey` to a started sign-in, sent; and the answer itself, to send again. */
    async finishSignIn(passkey: SoftwarePasskey, started: Answer) {
      const options = started.body.options as PublicKeyCredentialRequestOptionsJSON;
      const response = JSON.stringify(passkey.authenticate(options));
      return { answer: await step({ step: "sign_in", response }), response };
    },
  };
}

export type OwnerBrowser = ReturnType<typeof ownerBrowser>;
