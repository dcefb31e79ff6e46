export type PostOutcome = { readonly status: number } | { readonly error: string };

export interface PostRequest {
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly timeoutMs: number;
}

/** Sends one webhook request; never follows a redirect (a 3xx is simply the answer). */
export type WebhookPoster = (url: string, request: PostRequest) => Promise<PostOutcome>;
