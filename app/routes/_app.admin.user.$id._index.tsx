import { type LoaderFunctionArgs, redirect } from "@remix-run/cloudflare";

export const loader = ({ params }: LoaderFunctionArgs) => redirect(`/admin/user/${params.id}/assets`);
