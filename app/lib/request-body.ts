/**
 * How an API call's body goes on the wire, shared by the page's API client and the upload worker's: bytes as they
 * are (typed by the Blob), a form as multipart (the browser writes the boundary, so no Content-Type is set here), and
 * anything else as JSON.
 */
export function encodeBody(body: unknown): { body: BodyInit | undefined; contentType: string | null } {
  if (body === undefined) return { body: undefined, contentType: null };
  if (body instanceof FormData) return { body, contentType: null };
  if (body instanceof Blob) return { body, contentType: body.type || "application/octet-stream" };
  return { body: JSON.stringify(body), contentType: "application/json" };
}
