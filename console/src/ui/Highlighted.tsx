import type React from "react";
/** Renders search output whose matches are wrapped in <mark>…</mark>, as text: nothing else becomes markup. */
export function Highlighted({ text }: { text: string }) {
  const parts = text.split(/(<mark>|<\/mark>)/);
  let marked = false;
  const out: Array<React.ReactElement | string> = [];
  parts.forEach((p, i) => {
    if (p === '<mark>') marked = true;
    else if (p === '</mark>') marked = false;
    else if (p) out.push(marked ? <mark key={i}>{decode(p)}</mark> : decode(p));
  });
  return <>{out}</>;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const decode = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (m) => ENTITIES[m] ?? m);
