import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: image attachments (`extras.imageattachment`), attached to
 * an object of any service by content type and id; `image` is the stored
 * file's name under MEDIA_ROOT, indexed for the files served by name.
 * Never edit it; add a migration.
 */
export function imageAttachmentStatements(schema: string): string[] {
  const t = `"${schema}"."image_attachment"`;
  return [
    `CREATE TABLE ${t} (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "content_type" VARCHAR(100) NOT NULL,
      "object_id" BIGINT NOT NULL,
      "name" VARCHAR(50) NOT NULL DEFAULT '',
      "image" VARCHAR(100) NOT NULL DEFAULT '',
      "image_height" INTEGER,
      "image_width" INTEGER,
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "image_attachment_content_type_object_id_idx" ON ${t} ("content_type", "object_id")`,
    `CREATE INDEX "image_attachment_image_idx" ON ${t} ("image")`,
  ];
}

export const imageAttachments: Migration = {
  name: '0011_image_attachments',
  up: ({ qi, schema }) => runStatements(qi, imageAttachmentStatements(schema)),
};
