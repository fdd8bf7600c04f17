/** An API refusal shown where it happened (a form, a dialog), in the words the server chose. */
export function ErrorBox({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div className="adm-error" role="alert">
      {message}
    </div>
  );
}
