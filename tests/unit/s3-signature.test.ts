import { AwsV4Signer } from "aws4fetch";
import { describe, expect, it } from "vitest";
import { s3ObjectUrl } from "../../workers/services/storage/s3-backend";

/**
 * aws4fetch is what signs our S3 requests; these are AWS's published SigV4 examples, with the fixed dates they use,
 * so a change in the signer (or in how we call it) shows up here rather than as a 403 from a real bucket.
 */
describe("SigV4 signatures from aws4fetch match AWS's published examples", () => {
  it("get-vanilla (AWS SigV4 test suite, the vector aws4fetch's own tests run)", async () => {
    const signer = new AwsV4Signer({
      method: "GET",
      url: "https://example.amazonaws.com/",
      accessKeyId: "AKIDEXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
      service: "service",
      region: "us-east-1",
      datetime: "20150830T123600Z",
    });
    expect(await signer.authHeader()).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
    );
  });

  it("get-vanilla-query-order-key-case: query parameters are sorted", async () => {
    const signer = new AwsV4Signer({
      method: "GET",
      url: "https://example.amazonaws.com/?Param2=value2&Param1=value1",
      accessKeyId: "AKIDEXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
      service: "service",
      region: "us-east-1",
      datetime: "20150830T123600Z",
    });
    expect(await signer.signature()).toBe("b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
  });

  it("S3 GET Object with Range (Amazon S3 API reference, 'Signature calculations for the Authorization header')", async () => {
    const signer = new AwsV4Signer({
      method: "GET",
      url: "https://examplebucket.s3.amazonaws.com/test.txt",
      headers: { range: "bytes=0-9", "x-amz-content-sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
      accessKeyId: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      service: "s3",
      region: "us-east-1",
      datetime: "20130524T000000Z",
      // AWS's example signs Range; aws4fetch leaves it out unless asked.
      allHeaders: true,
    });
    expect(signer.signedHeaders).toBe("host;range;x-amz-content-sha256;x-amz-date");
    expect(await signer.signature()).toBe("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  });

  it("our path-style object URLs keep the canonical path aws4fetch signs", async () => {
    const url = s3ObjectUrl({ url: "https://s3.example.com", bucket: "media" }, "previews/ab/имя (1).jpg");
    const signer = new AwsV4Signer({ url, accessKeyId: "a", secretAccessKey: "b", service: "s3", region: "auto", datetime: "20260101T000000Z" });
    expect(signer.encodedPath).toBe(new URL(url).pathname);
    expect(signer.encodedPath).toBe("/media/previews/ab/%D0%B8%D0%BC%D1%8F%20%281%29.jpg");
  });
});
