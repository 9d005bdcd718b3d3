/** One way of telling people from scripts; `reason` is for logs, never for the client. */
export type HumanCheckVerifier = {
  verify(
    token: string,
    context: { ip: string; action: string },
  ): Promise<{ ok: boolean; reason?: string }>;
};
