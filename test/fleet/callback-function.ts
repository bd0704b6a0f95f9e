/**
 * The source of a signed-callback function for fleet tests: it verifies the platform's
 * signature with `PLATFORM_PUBLIC_KEY`, so with a Redis setting its nonce is claimed in Redis
 * (verifyServiceCallback's default store), and a refusal keeps its status and code.
 */
export const CALLBACK_FN = `import { HttpError } from 'cloudfn';
import { SignatureError, verifyServiceCallback } from 'cloudfn/sign';
export default async function (params: unknown, service: any) {
  try {
    await verifyServiceCallback(service, { publicKey: process.env.PLATFORM_PUBLIC_KEY! });
  } catch (error) {
    if (error instanceof SignatureError) throw new HttpError(error.status, error.message, { code: error.code });
    throw error;
  }
  return { ok: true };
}
`;
